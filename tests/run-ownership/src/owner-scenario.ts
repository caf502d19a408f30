// One process of the run-ownership tests: starts or resumes one run over a SQLite journal in
// `--dir`, with one irreversible tool ("charge") that writes to an effect ledger file beside it.
// The test drives it over stdio, so the moments that matter are the test's to choose:
//
//   node src/owner-scenario.ts --dir D --mode start|resume|start-or-resume
//
// stdout, one line each:  READY                        journal open, harness built; waiting for `go`
//                         MODEL_CALL                   the harness asked the model
//                         TOOL_STARTED <attempt> <token>  charge is running; waiting for `finish`
//                         DONE <json>                  the run ended: { outcome, fencingTokens }
//                         FAILED <code> <message>      start/resume refused with a YokeError
// stdin, one line each:   go                           start or resume now
//                         finish                       let the running charge apply its effect and return
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createSqliteJournal } from "@yoke/journal";
import { steppingClock, ulidIdSource } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { callTools, createEffectLedger, say } from "@yoke/testkit";
import { z } from "zod";
import { modelAfterJournal, runScenario, scenarioStdio, seededRandom } from "@yoke/testkit/crash";

const { values } = parseArgs({ options: { dir: { type: "string" }, mode: { type: "string" } } });
const dir = resolve(values.dir!);
mkdirSync(dir, { recursive: true });
const mode = values.mode as "start" | "resume" | "start-or-resume";
const scope = { tenantId: "tenant_owner", runId: "run_owned" };
const TASK = "Charge the card once.";
const START = Date.UTC(2026, 0, 1);

const io = scenarioStdio();
const { heard, emit } = io;

const store = await createSqliteJournal({ filename: join(dir, "journal.sqlite") });
const ledger = createEffectLedger(join(dir, "ledger.jsonl"));
const fencingTokens: number[] = [];

const charge = defineTool({
  name: "charge",
  description: "Charges the card. Irreversible.",
  input: z.object({ amount: z.number() }),
  sideEffect: "irreversible",
  timeoutMs: 120_000,
  async execute({ amount }, context) {
    if (context.fencingToken !== undefined) fencingTokens.push(context.fencingToken);
    emit(`TOOL_STARTED ${context.attemptId} ${context.fencingToken ?? "none"}`);
    await heard("finish");
    // The ledger key is the action (the idempotency key); the value names the attempt that applied it.
    const { receipt } = ledger.apply({ resource: "card", key: context.actionId, value: `${amount}:${context.attemptId}` });
    return { content: `charged ${amount}`, receipt };
  },
  reconcile: async (actionId) => (ledger.applied(actionId) ? { status: "applied", receipt: `receipt:${actionId}` } : { status: "not_applied" }),
});

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
});

await runScenario(
  io,
  async () => {
    const result =
      mode === "start"
        ? await harness.start(TASK, { runId: scope.runId })
        : mode === "resume"
          ? await harness.resume(scope.runId)
          : await harness.startOrResume(TASK, { runId: scope.runId });
    emit(`DONE ${JSON.stringify({ outcome: result.outcome?.status, fencingTokens })}`);
  },
  async () => {
    await store.close();
  },
);
