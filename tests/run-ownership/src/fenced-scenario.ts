// One process of the fencing test: starts or resumes one run over a SQLite journal in `--dir`,
// with one irreversible tool ("charge") whose backend checks fencing tokens (testkit's fenced
// backend, a file beside the journal). Its reconciler presents the token it is given. Driven
// over stdio like owner-scenario.ts:
//
//   node src/fenced-scenario.ts --dir D --mode start|resume --ttl MS
//
// stdout: READY | TOOL_STARTED <attempt> <token> | RECONCILED <token> <applied> | FENCED <token>
//         | DONE <json> | FAILED <code> <message>
// stdin:  go (start or resume; a resume waits for a live lease to lapse) | finish (let the charge apply)
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createSqliteJournal } from "@yoke/journal";
import { YokeError, steppingClock, ulidIdSource } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { callTools, createFencedBackend, say } from "@yoke/testkit";
import { z } from "zod";
import { modelAfterJournal, runScenario, scenarioStdio, seededRandom } from "@yoke/testkit/crash";

const { values } = parseArgs({ options: { dir: { type: "string" }, mode: { type: "string" }, ttl: { type: "string" } } });
const dir = resolve(values.dir!);
mkdirSync(dir, { recursive: true });
const ttlMs = Number(values.ttl ?? 1_500);
const scope = { tenantId: "tenant_owner", runId: "run_fenced" };

const io = scenarioStdio();
const { heard, emit } = io;

const store = await createSqliteJournal({ filename: join(dir, "journal.sqlite"), synchronous: "normal" });
const backend = createFencedBackend(join(dir, "backend.jsonl"));
const inFlight: Promise<unknown>[] = [];

const charge = defineTool({
  name: "charge",
  description: "Charges the card. Irreversible.",
  input: z.object({ amount: z.number() }),
  sideEffect: "irreversible",
  timeoutMs: 120_000,
  async execute({ amount }, context) {
    emit(`TOOL_STARTED ${context.attemptId} ${context.fencingToken ?? "none"}`);
    // The request is on its way: it reaches the backend at `finish` whatever happens to the run
    // meanwhile (a pause, a lost lease, the harness giving up), and the process waits for it.
    const request = heard("finish").then(() => {
      try {
        return backend.apply({ resource: "card", key: context.actionId, value: `${amount}:${context.attemptId}`, token: context.fencingToken });
      } catch (error) {
        if (YokeError.hasCode(error, "TOOL_FENCED")) emit(`FENCED ${context.fencingToken ?? "none"}`);
        throw error;
      }
    });
    inFlight.push(request.catch(() => undefined));
    const { receipt } = await request;
    return { content: `charged ${amount}`, receipt };
  },
  async reconcile(actionId, _receipt, context) {
    const { applied } = backend.reconcile({ key: actionId, token: context?.fencingToken });
    emit(`RECONCILED ${context?.fencingToken ?? "none"} ${applied}`);
    return applied ? { status: "applied", receipt: `receipt:${actionId}` } : { status: "not_applied" };
  },
});

const script = [callTools([{ name: "charge", args: { amount: 42 } }]), say("Charged once.")];
const { model, lastAt } = await modelAfterJournal(store, scope, script, { start: Date.UTC(2026, 0, 1) });
const clock = steppingClock(lastAt + 1, 1);
const harness = createHarness({
  journal: store,
  provider: model,
  tools: [charge],
  tenantId: scope.tenantId,
  clock,
  ids: ulidIdSource({ clock, random: seededRandom(process.pid) }),
  maxTurns: 4,
  lease: { ttlMs, renewEveryMs: Math.max(1, Math.floor(ttlMs / 3)) },
});

await runScenario(
  io,
  async () => {
    const result =
      values.mode === "start"
        ? await harness.start("Charge the card once.", { runId: scope.runId })
        : await harness.resume(scope.runId, { waitForLease: 60_000 });
    emit(`DONE ${JSON.stringify({ outcome: result.outcome?.status })}`);
  },
  async () => {
    await Promise.all(inFlight);
    await store.close();
  },
);
