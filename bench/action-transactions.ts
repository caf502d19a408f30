// Action transactions on a SQLite journal, three figures:
// - throughput: actions per second through the whole transaction (proposed … committed),
//   no-op tools, 4 non-conflicting actions per turn;
// - turn: the cost of a whole tool turn (model response, two actions through every state,
//   results and the next request) against two raw fsync'd better-sqlite3 transactions that
//   insert exactly the rows Yoke stored for that turn, rounds interleaved in one process
//   (synchronous=FULL);
// - the same turn with synchronous=NORMAL on both sides (no fsync): Yoke's CPU per tool turn,
//   split into the time inside journal.append (sealing + SQLite) and everything else (model
//   response, admission, fold, dispatch, compile).
// FULL and NORMAL rounds alternate, in both orders, so neither gets the warmer JIT or disk.
// Prints JSON. usage: node action-transactions.ts <turns> <rounds>
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { z } from "zod";
import { createSqliteJournal } from "@yoke/journal";
import { canonicalJson, sequentialIdSource, steppingClock, type JournalEvent, type JournalV1 } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { median } from "./stats.ts";

const turns = Number(process.argv[2] ?? "100");
const rounds = Number(process.argv[3] ?? "3");
const dir = mkdtempSync(join(tmpdir(), "yoke-bench-actions-"));

const noop = (name: string) =>
  defineTool({
    name,
    description: `does nothing (${name})`,
    input: z.object({ n: z.number() }),
    sideEffect: "irreversible",
    access: ({ n }) => ({ reads: [], writes: [`${name}:${n}`] }),
    execute: async () => "ok",
    reconcile: async () => ({ status: "not_applied" }),
  });

/** Runs `turns` tool turns of `perTurn` actions; returns per-turn µs, total seconds and every append's stored events. */
async function yokeRun(label: string, perTurn: number, synchronous: "full" | "normal" = "full") {
  const inner = await createSqliteJournal({ filename: join(dir, `${label}.sqlite`), synchronous });
  const appends: JournalEvent[][] = [];
  let inAppend = 0n;
  const journal: JournalV1 = {
    ...inner,
    specificationVersion: "v1",
    capabilities: inner.capabilities,
    append: async (scope, seq, drafts) => {
      const before = process.hrtime.bigint();
      const result = await inner.append(scope, seq, drafts);
      inAppend += process.hrtime.bigint() - before;
      appends.push([...result.events]);
      return result;
    },
    read: (scope, options) => inner.read(scope, options),
    head: (scope) => inner.head(scope),
    verify: (scope) => inner.verify(scope),
    listRuns: (tenantId) => inner.listRuns(tenantId),
    close: () => inner.close(),
  };
  const names = Array.from({ length: perTurn }, (_, index) => `noop_${index}`);
  const steps = [
    ...Array.from({ length: turns }, (_, turn) => callTools(names.map((name) => ({ id: `call_${turn}_${name}`, name, args: { n: turn } })))),
    say("done"),
  ];
  const turnStarts: bigint[] = [];
  const appendAtStart: bigint[] = [];
  const harness = createHarness({
    journal,
    provider: createScriptedModel(steps, { recordCalls: false }),
    tools: names.map(noop),
    tenantId: "tenant_bench",
    clock: steppingClock(1_700_000_000_000, 1),
    ids: sequentialIdSource(),
    maxTurns: turns + 2,
    onEvent: (event) => {
      if (event.type !== "turn.started") return;
      turnStarts.push(process.hrtime.bigint());
      appendAtStart.push(inAppend);
    },
  });
  const start = process.hrtime.bigint();
  const result = await harness.start("benchmark task");
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (result.outcome.status !== "verified_success") throw new Error(`bench run ended ${result.outcome.status}`);
  await inner.close();
  const perTurnUs = turnStarts.slice(1, turns + 1).map((at, index) => Number(at - turnStarts[index]!) / 1e3);
  const appendUs = appendAtStart.slice(1, turns + 1).map((at, index) => Number(at - appendAtStart[index]!) / 1e3);
  return { perTurnUs, appendUs, seconds, appends };
}

/** The same rows, stored by hand: two fsync'd transactions per tool turn, nothing else. */
function rawRun(label: string, appends: readonly JournalEvent[][], synchronous: "full" | "normal" = "full"): number[] {
  const db = new Database(join(dir, `${label}-raw.sqlite`));
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${synchronous.toUpperCase()}`);
  db.exec(`CREATE TABLE events (tenant_id TEXT NOT NULL, run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL,
    at INTEGER NOT NULL, causation_id TEXT, data TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL,
    schema_version INTEGER NOT NULL, PRIMARY KEY (tenant_id, run_id, seq)) WITHOUT ROWID, STRICT`);
  const insert = db.prepare("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  const commit = db.transaction((events: readonly JournalEvent[]) => {
    for (const event of events) {
      insert.run(event.tenantId, event.runId, event.seq, event.type, event.at, event.causationId, JSON.stringify(event.data), event.prevHash, event.hash, event.schemaVersion);
    }
  });
  commit.immediate(appends[0]!); // run.started + the first request
  const perTurnUs: number[] = [];
  // Appends 1, 2 are turn 1 (response + admits; outcomes + next request), 3, 4 turn 2, …
  for (let turn = 0; turn < turns; turn++) {
    const first = appends[1 + turn * 2]!;
    const second = appends[2 + turn * 2]!;
    const start = process.hrtime.bigint();
    commit.immediate(first);
    commit.immediate(second);
    perTurnUs.push(Number(process.hrtime.bigint() - start) / 1e3);
  }
  db.close();
  return perTurnUs;
}

await yokeRun("warmup", 2);
const ratios: number[] = [];
const yokeTurn: number[] = [];
const rawTurn: number[] = [];
const ratiosNormal: number[] = [];
const yokeTurnNormal: number[] = [];
const yokeAppendNormal: number[] = [];
const rawTurnNormal: number[] = [];
let appendsPerTurn = 0;
let turnBytes = 0;
for (let round = 0; round < rounds; round++) {
  // Alternate which durability goes first, so neither gets the warmer JIT or disk.
  const order = round % 2 === 0 ? (["full", "normal"] as const) : (["normal", "full"] as const);
  for (const synchronous of order) {
    const run = await yokeRun(`${synchronous}-${round}`, 2, synchronous);
    const raw = rawRun(`${synchronous}-${round}`, run.appends, synchronous);
    const yokeMedian = median(run.perTurnUs);
    const rawMedian = median(raw);
    if (synchronous === "full") {
      yokeTurn.push(yokeMedian);
      rawTurn.push(rawMedian);
      ratios.push(yokeMedian / rawMedian);
      appendsPerTurn = (run.appends.length - 3) / turns; // minus the first append and the final answer's two
      turnBytes = canonicalJson([...run.appends[1]!, ...run.appends[2]!]).length;
    } else {
      // Without fsyncs what is left is CPU: Yoke's split into journal.append and the rest.
      yokeTurnNormal.push(yokeMedian);
      yokeAppendNormal.push(median(run.appendUs));
      rawTurnNormal.push(rawMedian);
      ratiosNormal.push(yokeMedian / rawMedian);
    }
  }
}
const throughput: number[] = [];
for (let round = 0; round < rounds; round++) {
  const run = await yokeRun(`throughput-${round}`, 4);
  throughput.push((turns * 4) / run.seconds);
}
rmSync(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    turns,
    actionsPerSecond: median(throughput),
    yokeTurnUs: median(yokeTurn),
    rawTurnUs: median(rawTurn),
    ratio: median(ratios),
    yokeTurnNormalUs: median(yokeTurnNormal),
    yokeAppendNormalUs: median(yokeAppendNormal),
    rawTurnNormalUs: median(rawTurnNormal),
    ratioNormal: median(ratiosNormal),
    appendsPerTurn,
    turnBytes,
  }),
);
