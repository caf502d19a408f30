// pnpm bench: every figure is a median over interleaved rounds in one run, next to its
// baseline measured in the same run. Each benchmark runs in a fresh Node process.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { benchStartupAndSize } from "./startup-and-size.ts";
import type { SessionRunFigures } from "./session-runs.ts";
import { fmt, printTable, runChild } from "./stats.ts";

interface AppendVariant {
  eventsPerSecond: number;
  usPerAppend: number;
  vsRaw: number;
  vsBare: number;
  extraUsPerAppend: number;
}
interface AppendResult {
  synchronous: string;
  eventBytes: number;
  yoke: number;
  raw: number;
  ratio: number;
  variants: Record<"bare" | "witness" | "lease" | "both", AppendVariant>;
}
interface TurnsResult {
  turns: number;
  synchronous: string;
  medianTurnUs: number;
  tailMedianTurnUs: number;
  meanTurnUs: number;
  peakRssMb: number;
  heapAfterGcMb?: number;
  journalBytes: number;
}

const quick = process.argv.includes("--quick");
console.log(`Yoke benchmarks — Node ${process.versions.node}, ${new Date().toISOString().slice(0, 10)}${quick ? " (quick)" : ""}`);

const appendRows: string[][] = [];
const ownershipRows: string[][] = [];
for (const mode of ["full", "normal"]) {
  const result = runChild<AppendResult>("journal-append.ts", [mode, quick ? "100" : mode === "full" ? "400" : "2000", quick ? "3" : "7"]);
  const { bare, witness, lease, both } = result.variants;
  appendRows.push([
    `synchronous=${mode.toUpperCase()}`,
    fmt(bare.eventsPerSecond),
    fmt(both.eventsPerSecond),
    fmt(result.raw),
    fmt(bare.vsRaw, 2),
    fmt(both.vsRaw, 2),
  ]);
  for (const [name, variant] of [
    ["head witness", witness],
    ["lease", lease],
    ["witness + lease", both],
  ] as const) {
    ownershipRows.push([
      mode.toUpperCase(),
      name,
      fmt(bare.usPerAppend, 1),
      fmt(variant.usPerAppend, 1),
      fmt(variant.extraUsPerAppend, 1),
      fmt(variant.vsBare, 2),
    ]);
  }
}
printTable(
  "Journal append, SQLite WAL, one transaction per turn of 5 events of ~300 bytes (events/s, median of rounds)",
  ["durability", "bare journal", "witness + lease", "raw better-sqlite3", "bare/raw", "with both/raw"],
  appendRows,
);
printTable(
  "Cost of run ownership and tamper evidence per append (µs per append, medians of paired rounds; bare = no head witness, no lease: the append path before them)",
  ["sync", "added", "bare µs", "with µs", "extra µs", "throughput vs bare"],
  ownershipRows,
);

const turnRows: string[][] = [];
for (const mode of ["full", "normal"]) {
  for (const turns of [50, 200, 800]) {
    const result = runChild<TurnsResult>("harness-turns.ts", [String(turns), mode], ["--expose-gc"]);
    turnRows.push([
      `${mode.toUpperCase()}`,
      String(turns),
      fmt(result.medianTurnUs),
      fmt(result.tailMedianTurnUs),
      fmt(result.meanTurnUs),
      fmt(result.peakRssMb, 1),
      fmt(result.heapAfterGcMb ?? Number.NaN, 1),
      fmt(result.journalBytes / 1024),
    ]);
  }
}
const flat = (mode: string) => {
  const rows = turnRows.filter((row) => row[0] === mode.toUpperCase());
  return Number(rows.at(-1)![3]!.replace(/,/g, "")) / Number(rows[0]![3]!.replace(/,/g, ""));
};
printTable(
  "Harness cost per turn: scripted model, 2 no-op tools per turn, SQLite journal (µs)",
  ["sync", "turns", "median/turn", "last-50 median", "mean/turn", "peak RSS MB", "heap after GC MB", "journal KiB"],
  turnRows,
);
// The peak RSS above is mostly V8's young generation, which grows with the allocation rate;
// the same 800-turn run with the young generation capped shows what the run itself needs.
const capped = runChild<TurnsResult>("harness-turns.ts", ["800", "normal"], ["--expose-gc", "--max-semi-space-size=4"]);
console.log(
  `\n800 turns (NORMAL) with node --max-semi-space-size=4: peak RSS ${fmt(capped.peakRssMb, 1)} MB, heap after GC ${fmt(capped.heapAfterGcMb ?? Number.NaN, 1)} MB`,
);
console.log(`\nper-turn cost at 800 turns / at 50 turns (last-50 medians): FULL ${flat("full").toFixed(2)}, NORMAL ${flat("normal").toFixed(2)} (1.00 = flat)`);

// Budget admission (issue 15): the same turn with and without a budget bounding every
// dimension (with prices), and without loop detection either (the turn before issue 15),
// interleaved rounds in one process; events and journaled bytes per turn are the
// machine-independent figures next to the times.
interface BudgetTurnResult {
  turns: number;
  rounds: number;
  store: string;
  bareTurnUs: number;
  plainTurnUs: number;
  budgetTurnUs: number;
  overheadUs: number;
  overheadRatio: number;
  issueOverheadRatio: number;
  plainEventsPerTurn: number;
  budgetEventsPerTurn: number;
  plainBytesPerTurn: number;
  budgetBytesPerTurn: number;
}
const budgetRows: string[][] = [];
for (const store of ["memory", "sqlite"]) {
  const result = runChild<BudgetTurnResult>("harness-budget.ts", [quick ? "50" : "200", quick ? "3" : "7", store]);
  budgetRows.push([
    store,
    fmt(result.bareTurnUs),
    fmt(result.plainTurnUs),
    fmt(result.budgetTurnUs),
    `${fmt(result.overheadRatio * 100, 1)}%`,
    `${fmt(result.issueOverheadRatio * 100, 1)}%`,
    `${fmt(result.plainEventsPerTurn, 1)} → ${fmt(result.budgetEventsPerTurn, 1)}`,
    `${fmt(result.plainBytesPerTurn)} → ${fmt(result.budgetBytesPerTurn)}`,
  ]);
}
printTable(
  "Budget admission per turn: reserve + settle of the model call and of 2 tool attempts, carried by the turn's own events, vs the same turn without a budget (µs, medians)",
  ["journal", "no loop detection, no budget", "no budget", "budget", "budget share", "budget + loop detection share", "events/turn", "bytes/turn"],
  budgetRows,
);

/** Instructions a turn, one way of counting: per variant, and the budget's share against bare (and plain, memory only). */
interface InstructionFigures {
  bare: number;
  plain?: number;
  budget: number;
  overheadRatio?: number;
  issueOverheadRatio: number;
}
interface BudgetInstructionsResult {
  rows: { store: string; all: InstructionFigures; main: InstructionFigures }[];
}
// The same turn in instructions (callgrind): what the shared machine's load does not change. Slow
// (ten runs under valgrind), so on demand: `pnpm bench --instructions`.
if (process.argv.includes("--instructions")) {
  if (spawnSync("valgrind", ["--version"]).status !== 0) console.log("\nBudget admission per turn in instructions: skipped (valgrind is not installed)");
  else {
    const result = runChild<BudgetInstructionsResult>("harness-budget-instructions.ts", quick ? ["20", "80"] : ["100", "300"]);
    const table = (title: string, of: "all" | "main") =>
      printTable(
        title,
        ["journal", "no loop detection, no budget", "no budget", "budget", "budget share", "budget + loop detection share"],
        result.rows.map(({ store, [of]: counted }) => [
          store,
          fmt(counted.bare),
          counted.plain === undefined ? "—" : fmt(counted.plain),
          fmt(counted.budget),
          counted.overheadRatio === undefined ? "—" : `${fmt(counted.overheadRatio * 100, 1)}%`,
          `${fmt(counted.issueOverheadRatio * 100, 1)}%`,
        ]),
      );
    table(
      "Budget admission per turn in instructions (callgrind; machine-independent: a turn's instructions, long run minus short run; SQLite: the default store at synchronous=NORMAL, its own instructions included)",
      "all",
    );
    table(
      "The same counts without V8's optimizing compilers (Maglev, TurboFan: one-time tier-ups, on background threads in a normal process; on the main thread only under --predictable)",
      "main",
    );
  }
} else console.log("\nBudget admission per turn in instructions: not run (`pnpm bench --instructions`: callgrind, ~6 min)");

interface TurnWorkResult {
  short: number;
  long: number;
  callsPerTurn: number;
  promisesPerTurn: number;
  interpretedInstructionsPerTurn: number | null;
}
// What a bare turn does, in counts that neither the machine nor V8's tier-up and GC timing move
// (turn-work.ts says why the optimized count above cannot resolve a few tenths of a percent).
// Compare two commits by running this on each: the figures are deterministic.
if (process.argv.includes("--instructions")) {
  const work = runChild<TurnWorkResult>("turn-work.ts", quick ? ["10", "30"] : ["20", "60"]);
  printTable(
    `What one more bare turn does (turns ${work.short} to ${work.long}, memory journal; deterministic: calls from V8's precise coverage, promises from async_hooks, instructions under callgrind with the interpreter alone)`,
    ["JS calls (packages/*)", "promises", "interpreted instructions"],
    [
      [
        fmt(work.callsPerTurn, 1),
        fmt(work.promisesPerTurn, 1),
        work.interpretedInstructionsPerTurn === null ? "— (no valgrind)" : fmt(work.interpretedInstructionsPerTurn),
      ],
    ],
  );
}

interface SessionRunsResult {
  runs: number;
  first: SessionRunFigures;
  last: SessionRunFigures;
  promisesRatio: number;
  startPromisesRatio: number;
  secondTurnPromisesRatio: number;
  requestBytesRatio: number;
}
// What continuing a session costs: a session's tenth run against its first (deterministic counts).
{
  const sessions = runChild<SessionRunsResult>("session-runs.ts", ["10"]);
  printTable(
    `Per-turn cost of a session's run ${sessions.last.run} vs its run 1 (two turns each, memory journal; deterministic: promises from async_hooks, journal events read, the last request)`,
    ["run", "promises / turn", "events read / turn", "start: promises", "start: events read", "2nd turn: promises", "request messages", "request bytes"],
    [sessions.first, sessions.last].map((figures) => [
      String(figures.run),
      fmt(figures.promisesPerTurn, 1),
      fmt(figures.eventsReadPerTurn, 1),
      fmt(figures.startPromises),
      fmt(figures.startEventsRead),
      fmt(figures.secondTurnPromises),
      String(figures.requestMessages),
      fmt(figures.requestBytes),
    ]),
  );
  console.log(
    `  run ${sessions.last.run} / run 1: ${fmt(sessions.promisesRatio, 2)}× promises per turn (start ${fmt(sessions.startPromisesRatio, 2)}×, a later turn ${fmt(sessions.secondTurnPromisesRatio, 2)}×), ${fmt(sessions.requestBytesRatio, 2)}× request bytes`,
  );
}

interface ProviderStreamResult {
  provider: string;
  responses: number;
  streamBytes: number;
  adapterUs: number;
  rawUs: number;
  ratio: number;
  overheadUs: number;
}
const providerRows: string[][] = [];
for (const provider of ["openai", "anthropic", "ai-sdk"]) {
  const result = runChild<ProviderStreamResult>("provider-stream.ts", [provider, quick ? "200" : "1000", quick ? "3" : "5"]);
  providerRows.push([
    provider,
    String(result.responses),
    fmt(result.streamBytes),
    fmt(result.adapterUs),
    fmt(result.rawUs),
    fmt(result.overheadUs),
    fmt(result.ratio, 2),
  ]);
}
printTable(
  "Provider adapter per streamed response vs the raw SDK on the same recorded stream, loopback replay server (µs, median of rounds)",
  ["provider", "responses/round", "stream bytes", "adapter", "raw SDK", "overhead", "ratio"],
  providerRows,
);

// Time to the first streamed token: harness.stream (a new run journaled, its request compiled) vs the adapter alone.
interface FirstTokenResult {
  calls: number;
  adapterUs: number;
  memoryUs: number;
  sqliteUs: number;
  memoryRatio: number;
  sqliteRatio: number;
}
const firstTokenRows: string[][] = [];
for (const provider of ["openai", "anthropic", "ai-sdk"]) {
  const result = runChild<FirstTokenResult>("first-token.ts", [provider, quick ? "30" : "200", quick ? "3" : "5"]);
  firstTokenRows.push([
    provider,
    String(result.calls),
    fmt(result.adapterUs),
    fmt(result.memoryUs),
    fmt(result.memoryRatio, 2),
    fmt(result.sqliteUs),
    fmt(result.sqliteRatio, 2),
  ]);
}
printTable(
  "Time to the first streamed token: harness.stream (new run: run.started + compiled request journaled, then the call) vs the adapter alone, same recorded stream, loopback replay server (µs, median of rounds)",
  ["provider", "calls/round", "adapter", "Yoke, memory journal", "ratio", "Yoke, SQLite journal", "ratio"],
  firstTokenRows,
);

// Context compiler: full and per-turn compile, each next to its floor (tokenizing the same text once).
interface ContextFullResult {
  events: number;
  messages: number;
  tokens: number;
  compacted: number;
  coldMs: number;
  warmMs: number;
  againMs: number;
  floorMs: number;
}
interface ContextTurnsResult {
  turns: number;
  tokens: number;
  medianTurnUs: number;
  tailMedianTurnUs: number;
  floorTurnUs: number;
  deltaBytes: number;
  snapshotBytes: number;
}
const contextFull = runChild<ContextFullResult>("context-compile.ts", ["full", quick ? "3" : "7"]);
printTable(
  "Context compile of a 10,000-event run into a 128k-token window, js-tiktoken o200k_base (ms, median of rounds)",
  ["events", "messages", "tokens", "compacted", "full compile", "floor: tokenize once", "ratio", "next turn, cached"],
  [
    [
      fmt(contextFull.events),
      fmt(contextFull.messages),
      fmt(contextFull.tokens),
      fmt(contextFull.compacted),
      fmt(contextFull.coldMs, 1),
      fmt(contextFull.floorMs, 1),
      fmt(contextFull.coldMs / contextFull.floorMs, 2),
      fmt(contextFull.warmMs, 2),
    ],
  ],
);
const contextTurns = [50, 200, 800].map((turns) => runChild<ContextTurnsResult>("context-compile.ts", ["turns", String(turns)]));
printTable(
  "Context compile per turn, one long-lived compiler (µs; floor: tokenizing the turn's new messages once)",
  ["turns", "tokens", "median/turn", "last-50 median", "floor/turn", "manifest deltas KiB", "full snapshots KiB"],
  contextTurns.map((result) => [
    String(result.turns),
    fmt(result.tokens),
    fmt(result.medianTurnUs),
    fmt(result.tailMedianTurnUs),
    fmt(result.floorTurnUs),
    fmt(result.deltaBytes / 1024),
    fmt(result.snapshotBytes / 1024),
  ]),
);
console.log(
  `\nper-turn compile at 800 turns / at 50 turns (last-50 medians): ${(contextTurns[2]!.tailMedianTurnUs / contextTurns[0]!.tailMedianTurnUs).toFixed(2)} (1.00 = flat); ` +
    `manifest journal for the 800-turn run: ${fmt(contextTurns[2]!.deltaBytes / 1024)} KiB as deltas`,
);

// Tool registry (issue 13): building a registry and its snapshot, and per-turn discovery, for
// 10, 100 and 1,000 tools, each next to the floor of digesting the same specs once.
interface RegistryRow {
  tools: number;
  offered: number;
  floorUs: number;
  buildUs: number;
  snapshotUs: number;
  discoverUs: number;
  buildRatio: number;
  snapshotRatio: number;
  discoverRatio: number;
}
const registryBench = runChild<{ rounds: number; rows: RegistryRow[] }>("registry-snapshot.ts", [quick ? "3" : "9"]);
printTable(
  "Tool registry: register N tools + snapshot(), snapshot() alone, discover() per turn (grant + filter); floor: canonicalJson + SHA-256 of the same N specs (µs, median of rounds)",
  ["tools", "offered", "floor", "register+snapshot", "ratio", "snapshot()", "ratio", "discover()", "ratio"],
  registryBench.rows.map((row) => [
    fmt(row.tools),
    fmt(row.offered),
    fmt(row.floorUs),
    fmt(row.buildUs),
    fmt(row.buildRatio, 2),
    fmt(row.snapshotUs),
    fmt(row.snapshotRatio, 2),
    fmt(row.discoverUs),
    fmt(row.discoverRatio, 2),
  ]),
);

// Policy (issue 14): decide() with 10 and 1,000 rules, the same tuples at both sizes, rounds
// interleaved in one process; the 1,000 / 10 ratio is the cost of the extra rules.
interface PolicyRow {
  rules: number;
  decisionsPerSecond: number;
  p50Us: number;
  p99Us: number;
}
const policyBench = runChild<{ rounds: number; timerNs: number; rows: PolicyRow[]; ratio: { throughput: number; p50: number; p99: number } }>(
  "policy-decisions.ts",
  [quick ? "3" : "7"],
);
printTable(
  "Policy decisions: createPolicyEngine(...).decide(tuple) over 8 tuples (allow, approval, deny rule, default denies, read-only) (decisions/s: median of 5 ms windows; p50/p99 per decision, µs)",
  ["rules", "decisions/s", "p50 µs", "p99 µs"],
  policyBench.rows.map((row) => [fmt(row.rules), fmt(row.decisionsPerSecond), fmt(row.p50Us, 2), fmt(row.p99Us, 2)]),
);
console.log(
  `1,000 rules / 10 rules, same run: throughput ${fmt(policyBench.ratio.throughput, 2)}, p50 ${fmt(policyBench.ratio.p50, 2)}, p99 ${fmt(policyBench.ratio.p99, 2)} ` +
    `(per-decision times include the timer's ~${fmt(policyBench.timerNs)} ns)`,
);

// Budget ledger (issue 15): reserve + settle of a model call directly under the run's budget
// and under a 3-level tree (budget → subagent → verifier → call), rounds interleaved in one
// process; the depth 3 / depth 1 ratio is the cost of the ancestors.
interface BudgetRow {
  depth: number;
  pairsPerSecond: number;
  p50Us: number;
  p99Us: number;
}
const budgetBench = runChild<{
  rounds: number;
  timerNs: number;
  rows: BudgetRow[];
  ratio: { throughput: number; p50: number; p99: number };
  foldEventsPerSecond: number;
}>("budget-ledger.ts", [quick ? "3" : "7"]);
printTable(
  "Budget ledger: createBudgetLedger(...).reserve + settle of one model call (pairs/s: median of 5 ms windows; p50/p99 per pair, µs)",
  ["depth", "reserve+settle/s", "p50 µs", "p99 µs"],
  budgetBench.rows.map((row) => [fmt(row.depth), fmt(row.pairsPerSecond), fmt(row.p50Us, 2), fmt(row.p99Us, 2)]),
);
console.log(
  `depth 3 / depth 1, same run: throughput ${fmt(budgetBench.ratio.throughput, 2)}, p50 ${fmt(budgetBench.ratio.p50, 2)}, p99 ${fmt(budgetBench.ratio.p99, 2)} ` +
    `(per-pair times include the timer's ~${fmt(budgetBench.timerNs)} ns); foldBudget rebuilds ${fmt(budgetBench.foldEventsPerSecond)} events/s`,
);

// Action transactions (issue 3): throughput through every state, and a whole tool turn against
// two raw fsync'd transactions of the same rows, both on SQLite synchronous=FULL.
interface ActionsResult {
  turns: number;
  actionsPerSecond: number;
  yokeTurnUs: number;
  rawTurnUs: number;
  ratio: number;
  appendsPerTurn: number;
  turnBytes: number;
  yokeTurnNormalUs: number;
  yokeAppendNormalUs: number;
  rawTurnNormalUs: number;
  ratioNormal: number;
  yokeTurnAt50Us: number;
  yokeTurnAt800Us: number;
  rawTurnAt50Us: number;
  rawTurnAt800Us: number;
  journalFloorRatio: number;
  turnOverJournalRatio: number;
}
const actions = runChild<ActionsResult>("action-transactions.ts", [quick ? "100" : "400", quick ? "3" : "5"]);
printTable(
  "Action transactions: no-op irreversible tools, every state journaled (median of rounds; actions/s with synchronous=FULL)",
  ["sync", "turns", "actions/s (4 per turn)", "tool turn µs (2 actions)", "raw: same rows, 2 txns µs", "ratio", "appends per tool turn", "bytes per turn"],
  [
    [
      "FULL",
      String(actions.turns),
      fmt(actions.actionsPerSecond),
      fmt(actions.yokeTurnUs),
      fmt(actions.rawTurnUs),
      fmt(actions.ratio, 2),
      fmt(actions.appendsPerTurn, 1),
      fmt(actions.turnBytes),
    ],
    ["NORMAL", String(actions.turns), "", fmt(actions.yokeTurnNormalUs), fmt(actions.rawTurnNormalUs), fmt(actions.ratioNormal, 2), "", ""],
  ],
);
console.log(
  `(FULL − NORMAL is what the two fsyncs cost; Yoke's NORMAL turn is its CPU per tool turn: ` +
    `${fmt(actions.yokeAppendNormalUs)} µs inside journal.append (sealing + SQLite, vs ${fmt(actions.rawTurnNormalUs)} µs raw), ` +
    `${fmt(actions.yokeTurnNormalUs - actions.yokeAppendNormalUs)} µs for the rest: model response, admission, fold, dispatch, compile)`,
);
console.log(
  `journal alone (FULL): the same turns' appends through @yoke/journal without the harness, paired with the raw rows: ` +
    `${fmt(actions.journalFloorRatio, 2)} (the hash chain's share of the ratio); ` +
    `whole tool turn vs the journal alone: ${fmt(actions.turnOverJournalRatio, 2)} (the rest of the harness)`,
);
// The 1.3× aim in µs on this machine's disk: what the journal alone leaves for the rest of the
// harness, against what the rest costs in CPU alone (its NORMAL time outside journal.append).
const aimUs = 1.3 * actions.rawTurnUs;
const journalAloneUs = actions.journalFloorRatio * actions.rawTurnUs;
console.log(
  `aim 1.3× on this disk: a tool turn may take ${fmt(aimUs)} µs; the journal alone takes ${fmt(journalAloneUs)} µs of it, ` +
    `leaving ${fmt(aimUs - journalAloneUs)} µs for the rest of the harness, whose CPU alone is ` +
    `${fmt(actions.yokeTurnNormalUs - actions.yokeAppendNormalUs)} µs (NORMAL); raw FULL − NORMAL (two fsyncs): ` +
    `${fmt(actions.rawTurnUs - actions.rawTurnNormalUs)} µs`,
);
console.log(
  `tool turn in one 800-turn run (FULL): ${fmt(actions.yokeTurnAt50Us)} µs over turns 50–99, ${fmt(actions.yokeTurnAt800Us)} µs over turns 750–799 ` +
    `(800/50 = ${fmt(actions.yokeTurnAt800Us / actions.yokeTurnAt50Us, 2)}; 1.00 = flat); raw in the same windows: ` +
    `${fmt(actions.rawTurnAt50Us)} and ${fmt(actions.rawTurnAt800Us)} µs`,
);

interface McpCallResult {
  transport: string;
  calls: number;
  yokeMedianUs: number;
  rawMedianUs: number;
  ratio: number;
  medianRoundRatio: number;
  extraUs: number;
}
const mcpRows = (["stdio", "http"] as const).map((transport) => {
  const result = runChild<McpCallResult>("mcp-call.ts", [
    transport,
    quick ? "40" : transport === "http" ? "100" : "200",
    quick ? "2" : transport === "http" ? "4" : "6",
  ]);
  return [
    transport,
    String(result.calls),
    fmt(result.yokeMedianUs),
    fmt(result.rawMedianUs),
    fmt(result.extraUs),
    fmt(result.ratio, 2),
    fmt(result.medianRoundRatio, 2),
  ];
});
printTable(
  "MCP call overhead: server-everything `echo` through @yoke/mcp vs the raw SDK Client.callTool, same server program, calls alternated (µs, medians)",
  ["transport", "calls each", "@yoke/mcp", "raw SDK", "extra µs", "yoke/raw", "median of rounds"],
  mcpRows,
);

// yoke show (issue 16): the time to open a 10,000-event run in `yoke show`, spawn to exit,
// against a process that only opens the journal and reads the same events.
const cliShow = runChild<{
  events: number;
  rounds: number;
  printedLines: number;
  showMs: number;
  baselineMs: number;
  ratio: number;
  readMs: number;
  inspectMs: number;
}>("cli-show.ts", [quick ? "3" : "7"]);
printTable(
  `yoke show on a ${fmt(cliShow.events)}-event run (ms, medians of ${cliShow.rounds} interleaved rounds; each a fresh process)`,
  ["yoke show", "open + read only", "show/read", "read in-process", "inspectRun"],
  [[fmt(cliShow.showMs), fmt(cliShow.baselineMs), fmt(cliShow.ratio, 2), fmt(cliShow.readMs), fmt(cliShow.inspectMs)]],
);

// Run viewer (issue 16): open a 10,000-event run in Debian's chromium (playwright-core), from
// navigation to the timeline's first turns on screen, everything on 127.0.0.1.
interface ViewerOpenResult {
  events: number;
  turns: number;
  renderedTurns: number;
  rounds: number;
  apiBytes: number;
  coldMs: number;
  warmMs: number;
  serverColdMs: number;
  floorMs: number;
}
// Replay: a recorded run re-driven through the same code with recorded answers and outcomes,
// next to the original run's own throughput (same workload, same process, interleaved rounds).
interface ReplayResult {
  turns: number;
  events: number;
  rounds: number;
  originalEventsPerSecond: number;
  replayEventsPerSecond: number;
  ratio: number;
}
const replayed = runChild<ReplayResult>("replay.ts", [quick ? "20" : "100", quick ? "3" : "7"]);
printTable(
  `Replay: a ${fmt(replayed.turns)}-turn run (${fmt(replayed.events)} events, 2 no-op tool calls a turn, memory journals), run and replayed (events/s, medians of ${replayed.rounds} interleaved rounds)`,
  ["original run", "replay", "replay / original"],
  [[fmt(replayed.originalEventsPerSecond), fmt(replayed.replayEventsPerSecond), fmt(replayed.ratio, 2)]],
);

if (existsSync("/usr/bin/chromium")) {
  const viewer = runChild<ViewerOpenResult>("viewer-open.ts", [quick ? "2" : "5"]);
  printTable(
    `Run viewer: open a ${fmt(viewer.events)}-event run (${fmt(viewer.turns)} turns) in chromium, navigation → first turns rendered (ms, median of ${viewer.rounds} loads)`,
    ["cold (new viewer)", "warm (reload)", "server: run request, cold", "floor: 49-event run", "first page", "run JSON"],
    [
      [
        fmt(viewer.coldMs),
        fmt(viewer.warmMs),
        fmt(viewer.serverColdMs),
        fmt(viewer.floorMs),
        `${fmt(viewer.renderedTurns)} turns`,
        `${fmt(viewer.apiBytes / 1024, 1)} KiB`,
      ],
    ],
  );
} else {
  console.log("\nRun viewer: skipped (no /usr/bin/chromium; bash scripts/ensure-chromium.sh installs it)");
}

await benchStartupAndSize(quick);
