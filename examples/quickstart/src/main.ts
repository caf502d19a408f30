// The quick-start demo: a scripted model drives a small agent over a temporary workspace on a
// SQLite journal, and prints the run's timeline and the journal's verification.
//
//   node src/main.ts [--dir D]              run from scratch (D defaults to ./.yoke-demo)
//   node src/main.ts --crash-after N        SIGKILL this process right after the Nth durable append
//                                           (0: after creating the journal file, before any append)
//   node src/main.ts --resume               finish the run a crash left behind (or start it, if
//                                           the crash came before its first append)
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createSqliteJournal } from "@yoke/journal";
import { budgetReport, formatBudgetReport } from "@yoke/budget";
import { canonicalJson, parseYokeEvent, steppingClock, ulidIdSource, type PricingTable, type RunState, type YokeEvent } from "@yoke/protocol";
import { createHarness } from "@yoke/runtime";
import { createScriptedModel } from "@yoke/testkit";
import { crashInjection } from "@yoke/testkit/crash";
import { agentScript } from "./agent-script.ts";
import { describeEvent } from "./timeline.ts";
import { checkSummary, seedWorkspace, workspaceTools } from "./workspace-tools.ts";

const { values } = parseArgs({
  options: {
    dir: { type: "string", default: ".yoke-demo" },
    "crash-after": { type: "string" },
    resume: { type: "boolean", default: false },
  },
});
const dir = resolve(values.dir!);
const workspace = join(dir, "workspace");
const journalFile = join(dir, "journal.sqlite");
const scope = { tenantId: "tenant_demo", runId: "run_quickstart" };
const TASK = "Summarize notes/todo.txt into summary.md as a markdown list, then run the check.";
const START = Date.UTC(2026, 0, 1);
/** What the demo's scripted model would cost if it were a paid one (micro-units of USD per million tokens). */
const DEMO_PRICES: PricingTable = {
  version: 1,
  id: "demo-prices",
  currency: "USD",
  models: [{ provider: "scripted", model: "scripted-*", input: 3_000_000, output: 15_000_000 }],
};

if (values.resume) {
  if (!existsSync(journalFile)) {
    console.error(`nothing to resume in ${dir}: run the demo without --resume first`);
    process.exit(2);
  }
} else {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(workspace, { recursive: true });
  seedWorkspace(workspace);
}

const store = await createSqliteJournal({ filename: journalFile });
const crashAfter = values["crash-after"] === undefined ? undefined : Number(values["crash-after"]);
// A kill between creating the journal file and the run's first append: `--resume` must still finish.
if (crashAfter === 0) process.kill(process.pid, "SIGKILL");
// testkit's crash injection: counts appends and, with --crash-after N, SIGKILLs this process
// once the Nth append is durable, before the loop learns it succeeded.
const journal = crashInjection(store, {
  plan: crashAfter === undefined ? undefined : { append: crashAfter, point: "after-write" },
  ackLog: undefined,
});

// On resume, the scripted model only holds the answers the journal does not already have,
// and the clock continues after the last journaled event: nothing is asked twice.
let answered = 0;
let lastAt = START;
let existing = 0;
if (values.resume) {
  for await (const event of store.read(scope)) {
    if (event.type === "model.responded") answered += 1;
    lastAt = event.at;
    existing += 1;
  }
  console.log(
    existing === 0
      ? `resuming ${scope.runId}: the journal holds no events yet, so the run starts`
      : `resuming ${scope.runId}: the journal holds ${existing} events, ${answered} model responses`,
  );
}
const clock = steppingClock(lastAt + 1, 1);
const model = createScriptedModel(agentScript().slice(answered));
const harness = createHarness({
  journal,
  provider: model,
  tools: workspaceTools(workspace),
  tenantId: scope.tenantId,
  clock,
  ids: ulidIdSource({ clock, random: seededRandom(lastAt) }),
  systemPrompt: "You are a careful assistant. Use the tools to change files; say when you are done.",
  maxTurns: 8,
  checkCompletion: async () => checkSummary(workspace),
  // Hard limits: every model call and tool dispatch reserves its worst case first; the report below is rebuilt from the journal.
  budget: { limits: { turns: 8, tokens: 200_000, spend: 2_000_000, tool_ops: 20, wall_time: 600_000 }, pricing: DEMO_PRICES, outputReserve: 2_048 },
  onEvent: (event) => console.log(describeEvent(event)),
});

if (!values.resume) console.log(`run ${scope.runId} in ${workspace}\n`);
// startOrResume takes the run's lease first, then starts it if the journal holds none of it
// yet, or resumes it; a process still running it makes this one wait (waitForLease) for its lease.
const result = values.resume
  ? await harness.startOrResume(TASK, { runId: scope.runId, waitForLease: 60_000 })
  : await harness.start(TASK, { runId: scope.runId });
model.assertConsumed();
const verification = await store.verify(scope);
const events: YokeEvent[] = [];
for await (const event of store.read(scope)) events.push(parseYokeEvent(event));
await store.close();

console.log("");
// A run either ends with an outcome or waits for a person (a refusal, an escalation): `result.waiting` says which.
const status = result.waiting ? `waiting for a person (${result.waiting.kind})` : result.outcome.status;
console.log(`outcome: ${status} after ${result.state.turns} turns`);
console.log(
  verification.ok
    ? `journal verify: ok (${verification.events} events, head ${verification.headHash.slice(0, 16)})`
    : `journal verify: FAILED at event ${verification.firstBadSeq} (${verification.reason})`,
);
console.log(`appends this process: ${journal.appends}`);
console.log(`final state: ${finalStateDigest(result.state)}`);
console.log(`\nbudget report (from the journal alone):\n${formatBudgetReport(budgetReport(events))}`);
process.exit(status === "verified_success" && verification.ok ? 0 : 1);

/**
 * What a user cares about at the end, without ids and times that differ between an
 * uninterrupted run and a resumed one: the outcome, the transcript and the files.
 */
function finalStateDigest(state: RunState): string {
  const transcript = state.messages.map((message) =>
    message.role === "tool"
      ? { role: message.role, content: message.content.map(({ result: { timing: _timing, ...result }, ...part }) => ({ ...part, result })) }
      : message,
  );
  const files = Object.fromEntries(listFiles(workspace).map((path) => [path, readFileSync(join(workspace, path), "utf8")]));
  const body = canonicalJson({ outcome: state.outcome ?? null, turns: state.turns, transcript, files });
  return createHash("sha256").update(body).digest("hex").slice(0, 32);
}

function listFiles(root: string, prefix = ""): string[] {
  return readdirSync(join(root, prefix), { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? listFiles(root, join(prefix, entry.name)) : [join(prefix, entry.name)]))
    .sort();
}

function seededRandom(seed: number): () => number {
  let state = seed % 2147483647 || 1;
  return () => (state = (state * 48271) % 2147483647) / 2147483647;
}
