// One process of the approvals crash test: starts, approves or resumes one run over a SQLite
// journal in `--dir`, with a policy that parks every call of the irreversible tool "charge"
// for approval. The charge writes to an effect ledger file beside the journal. The test drives
// it over stdio:
//
//   node src/approval-scenario.ts --dir D --mode start|approve-resume|resume
//
// stdout, one line each:  READY                           journal open, harness built; waiting for `go`
//                         MODEL_CALL                      the harness asked the model
//                         WAITING <approvalId>            start/resume returned: the run waits for approval
//                         APPROVED <approvalId>           approval.granted is journaled
//                         TOOL_STARTED <attempt>          charge is running; waiting for `finish`
//                         DONE <json>                     the run ended: { outcome }
//                         FAILED <code> <message>         refused with a YokeError
// stdin, one line each:   go                              act now
//                         finish                          let the running charge apply its effect and return
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createSqliteJournal } from "@yoke/journal";
import { YokeError, awaitingApprovals, steppingClock, ulidIdSource, type PolicyEngineV1 } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { callTools, createEffectLedger, say } from "@yoke/testkit";
import { z } from "zod";
import { modelAfterJournal, runScenario, scenarioStdio, seededRandom } from "@yoke/testkit/crash";

const { values } = parseArgs({ options: { dir: { type: "string" }, mode: { type: "string" } } });
const dir = resolve(values.dir!);
mkdirSync(dir, { recursive: true });
const mode = values.mode as "start" | "approve-resume" | "resume";
const scope = { tenantId: "tenant_approvals", runId: "run_parked" };
const TASK = "Charge the card 42, once a person approves.";
const START = Date.UTC(2026, 0, 1);

const io = scenarioStdio();
const { heard, emit } = io;

const store = await createSqliteJournal({ filename: join(dir, "journal.sqlite") });
const ledger = createEffectLedger(join(dir, "ledger.jsonl"));

const charge = defineTool({
  name: "charge",
  description: "Charges the card. Irreversible.",
  input: z.object({ amount: z.number() }),
  sideEffect: "irreversible",
  timeoutMs: 120_000,
  policy: () => ({ verb: "charge", resource: "card:main" }),
  async execute({ amount }, context) {
    emit(`TOOL_STARTED ${context.attemptId}`);
    await heard("finish");
    const { receipt } = ledger.apply({ resource: "card", key: context.actionId, value: `${amount}:${context.attemptId}` });
    return { content: `charged ${amount}`, receipt };
  },
  reconcile: async (actionId) => (ledger.applied(actionId) ? { status: "applied", receipt: `receipt:${actionId}` } : { status: "not_applied" }),
});

/** Every charge needs a person; nothing else is asked. */
const policy: PolicyEngineV1 = {
  specificationVersion: "v1",
  revision: "3".repeat(64),
  decide: (tuple) =>
    tuple.verb === "charge"
      ? { effect: "require_approval", ruleId: "charges-need-a-person", policyRevision: "3".repeat(64), reason: "charges are approved by a person" }
      : { effect: "allow", ruleId: "the-rest", policyRevision: "3".repeat(64), reason: "not a charge" },
};

// The model's answers the journal does not hold yet: nothing is asked twice.
const script = [callTools([{ name: "charge", args: { amount: 42 } }]), say("Charged once.")];
const { model, lastAt } = await modelAfterJournal(store, scope, script, { start: START, onCall: () => emit("MODEL_CALL") });
const clock = steppingClock(lastAt + 1, 1);
const harness = createHarness({
  journal: store,
  provider: model,
  tools: [charge],
  tenantId: scope.tenantId,
  clock,
  ids: ulidIdSource({ clock, random: seededRandom(process.pid) }),
  maxTurns: 4,
  policy,
  principal: { id: "user_7" },
});

await runScenario(
  io,
  async () => {
    if (mode === "approve-resume") {
      const [request] = awaitingApprovals(await harness.getState(scope.runId));
      if (request === undefined)
        throw new YokeError("APPROVAL_NOT_FOUND", "nothing waits for approval", { details: { approvalId: "", tenantId: scope.tenantId, runId: scope.runId } });
      await harness.approve(scope.runId, request.approvalId, { approver: "ops@example.com" });
      emit(`APPROVED ${request.approvalId}`);
    }
    const result = mode === "start" ? await harness.start(TASK, { runId: scope.runId }) : await harness.resume(scope.runId);
    if (result.waiting !== undefined) emit(`WAITING ${result.waiting.approvals.map((approval) => approval.approvalId).join(",")}`);
    else emit(`DONE ${JSON.stringify({ outcome: result.outcome.status })}`);
    // A parked run's process stays up (the test kills it); a finished one exits.
    if (result.waiting !== undefined) await heard("exit");
  },
  async () => {
    await store.close();
  },
);
