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
import { createInterface } from "node:readline";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createSqliteJournal } from "@yoke/journal";
import { YokeError, steppingClock, ulidIdSource, type ModelRequest, type ProviderAdapterV1 } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { callTools, createEffectLedger, createScriptedModel, say } from "@yoke/testkit";
import { z } from "zod";

const { values } = parseArgs({ options: { dir: { type: "string" }, mode: { type: "string" } } });
const dir = resolve(values.dir!);
mkdirSync(dir, { recursive: true });
const mode = values.mode as "start" | "resume" | "start-or-resume";
const scope = { tenantId: "tenant_owner", runId: "run_owned" };
const TASK = "Charge the card once.";
const START = Date.UTC(2026, 0, 1);

const lines = createInterface({ input: process.stdin });
const waiting = new Map<string, () => void>();
const early = new Set<string>();
lines.on("line", (line) => {
  const resolveLine = waiting.get(line);
  if (resolveLine === undefined) early.add(line);
  else {
    waiting.delete(line);
    resolveLine();
  }
});
const heard = (line: string) => (early.delete(line) ? Promise.resolve() : new Promise<void>((resolveLine) => waiting.set(line, resolveLine)));
const emit = (line: string) => process.stdout.write(`${line}\n`);

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
let answered = 0;
let lastAt = START;
for await (const event of store.read(scope)) {
  if (event.type === "model.responded") answered += 1;
  lastAt = event.at;
}
const scripted = createScriptedModel(script.slice(answered));
const model: ProviderAdapterV1 = {
  specificationVersion: "v1",
  provider: scripted.provider,
  modelId: scripted.modelId,
  capabilities: scripted.capabilities,
  generate(request: ModelRequest, options) {
    emit("MODEL_CALL");
    return scripted.generate(request, options);
  },
};
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

emit("READY");
await heard("go");
try {
  const result =
    mode === "start"
      ? await harness.start(TASK, { runId: scope.runId })
      : mode === "resume"
        ? await harness.resume(scope.runId)
        : await harness.startOrResume(TASK, { runId: scope.runId });
  emit(`DONE ${JSON.stringify({ outcome: result.outcome?.status, fencingTokens })}`);
} catch (error) {
  if (!YokeError.isInstance(error)) throw error;
  emit(`FAILED ${error.code} ${error.message.replace(/\n/g, " ")}`);
} finally {
  await store.close();
  lines.close();
}

function seededRandom(seed: number): () => number {
  let state = seed % 2147483647 || 1;
  return () => (state = (state * 48271) % 2147483647) / 2147483647;
}
