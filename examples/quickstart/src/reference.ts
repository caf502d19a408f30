// The reference scenario of action transactions, on a SQLite journal and an effect ledger
// file, killable at any durable append and resumable in a fresh process.
//
//   node src/reference.ts [--dir D]                      run from scratch (D defaults to ./.yoke-reference)
//   node src/reference.ts --crash-at N:POINT             SIGKILL at append N; POINT is before-write, after-write or after-resolve
//   node src/reference.ts --resume                       finish the run a kill left behind
//   node src/reference.ts --seed N [...]                 a generated scenario (testkit's generatedScenario) instead
//
// `runCrashInjector` (in test/reference-crash.test.ts and test/generated-crash.test.ts) drives this
// same script at every kill point.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createSqliteJournal } from "@yoke/journal";
import { canonicalJson, steppingClock, ulidIdSource, type JournalEvent } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { createEffectLedger, createScriptedModel, generatedScenario, referenceScenario, summarizeActions } from "@yoke/testkit";
import { crashInjection, crashPlanFromEnv, printScenarioReport, SCENARIO_REPORT_ENV, type CrashPlan, type KillPoint } from "@yoke/testkit/crash";
import { describeEvent } from "./timeline.ts";

const { values } = parseArgs({
  options: {
    dir: { type: "string", default: ".yoke-reference" },
    "crash-at": { type: "string" },
    resume: { type: "boolean", default: false },
    quiet: { type: "boolean", default: false },
    seed: { type: "string" },
  },
});
const dir = resolve(values.dir!);
const journalFile = join(dir, "journal.sqlite");
const scope = { tenantId: "tenant_demo", runId: "run_reference" };
const START = Date.UTC(2026, 0, 1);

if (values.resume) {
  if (!existsSync(journalFile)) {
    console.error(`nothing to resume in ${dir}: run without --resume first`);
    process.exit(2);
  }
} else if (!existsSync(join(dir, "acks.log"))) {
  // A crash injector creates the directory (and its ack log) itself; a user run starts clean.
  rmSync(dir, { recursive: true, force: true });
}
mkdirSync(dir, { recursive: true });

const plan: CrashPlan | undefined = values["crash-at"] === undefined ? crashPlanFromEnv() : parsePlan(values["crash-at"]);
const store = await createSqliteJournal({ filename: journalFile });
const journal = crashInjection(store, { plan });
const ledger = createEffectLedger(join(dir, "ledger.jsonl"));
const scenario = values.seed === undefined ? referenceScenario(ledger) : generatedScenario(ledger, Number(values.seed));

let answered = 0;
let lastAt = START;
if (values.resume) {
  let events = 0;
  for await (const event of store.read(scope)) {
    if (event.type === "model.responded") answered += 1;
    lastAt = event.at;
    events += 1;
  }
  log(`resuming ${scope.runId}: the journal holds ${events} events, ${answered} model responses`);
}
const clock = steppingClock(lastAt + 1, 1);
const model = createScriptedModel(scenario.steps().slice(answered));
const harness = createHarness({
  journal,
  provider: model,
  tools: scenario.tools.map((tool) => defineTool(tool)),
  tenantId: scope.tenantId,
  clock,
  ids: ulidIdSource({ clock, random: seededRandom(lastAt) }),
  maxTurns: 8,
  onEvent: (event) => log(describeEvent(event)),
});
// A kill before the first append leaves no run: resuming it means starting it.
const exists = (await store.head(scope)) !== null;
const result = exists ? await harness.resume(scope.runId) : await harness.start(scenario.task, { runId: scope.runId });
// A run ends with an outcome or waits for a person (`result.waiting`: a refusal, an escalation).
const status = result.waiting ? `waiting for a person (${result.waiting.kind})` : result.outcome.status;
// An escalated or waiting run stops where the action needing a human is; otherwise every answer is used.
if (!result.waiting && result.outcome.status !== "escalated") model.assertConsumed();
const verification = await store.verify(scope);
const events: JournalEvent[] = [];
for await (const event of store.read(scope)) events.push(event);
await store.close();

const summary = summarizeActions(events);
const finalState = createHash("sha256")
  .update(canonicalJson({ outcome: status, effects: ledger.netState(), actions: summary.finalStates }))
  .digest("hex")
  .slice(0, 32);
log("");
log(`outcome: ${status}`);
log(`actions: ${summary.finalStates.join(", ")}`);
for (const action of summary.uncertain) log(`uncertain: ${action.toolName} ${action.actionId} -> ${action.resolution}`);
log(`ledger: ${JSON.stringify(ledger.netState())}, duplicated effects ${ledger.duplicates()}`);
log(`journal verify: ${verification.ok ? `ok (${verification.events} events)` : `FAILED at ${verification.firstBadSeq}`}`);
// The one line a crash injector reads; a user run skips it.
if (process.env[SCENARIO_REPORT_ENV] === "1")
  printScenarioReport({
    outcome: status,
    finalState,
    verified: verification.ok,
    hashes: events.map((event) => event.hash),
    duplicatedEffects: ledger.duplicates(),
    uncertain: summary.uncertain,
    silentRetries: summary.silentRetries,
  });

function log(line: string): void {
  if (!values.quiet) console.log(line);
}

function parsePlan(text: string): CrashPlan {
  const [append, point] = text.split(":");
  return { append: Number(append), point: (point ?? "after-write") as KillPoint };
}

function seededRandom(seed: number): () => number {
  let state = seed % 2147483647 || 1;
  return () => (state = (state * 48271) % 2147483647) / 2147483647;
}
