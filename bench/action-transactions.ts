// Action transactions on a SQLite journal, three figures:
// - throughput: actions per second through the whole transaction (proposed … committed),
//   no-op tools, 4 non-conflicting actions per turn;
// - turn: the cost of a whole tool turn (model response, two actions through every state,
//   results and the next request) against two raw fsync'd better-sqlite3 transactions that
//   insert exactly the rows Yoke stored for that turn (synchronous=FULL);
// - the same turn with synchronous=NORMAL on both sides (no fsync): Yoke's CPU per tool turn,
//   split into the time inside journal.append (sealing + SQLite) and everything else (model
//   response, admission, fold, dispatch, compile).
// The raw transactions are paired with Yoke's turns: when turn k+1 starts, the raw side stores
// turn k's rows (in its own file) and is timed apart, so each pair sees the same moment of
// this shared machine's disk and CPU. Yoke's turn is the time between two raw pairs. FULL and
// NORMAL rounds alternate, in both orders.
// Prints JSON. usage: node action-transactions.ts <turns> <rounds>
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { createSqliteJournal } from "@yoke/journal";
import { canonicalJson, sequentialIdSource, steppingClock, type JournalEvent, type JournalV1 } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { median, openRawEvents } from "./stats.ts";

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

/** The raw side: the same rows, stored by hand, two transactions per tool turn and nothing else. */
function rawStore(label: string, synchronous: "full" | "normal") {
  const { db, insert } = openRawEvents(join(dir, `${label}-raw.sqlite`), synchronous);
  const commit = db.transaction((events: readonly JournalEvent[]) => {
    for (const event of events) {
      insert.run(
        event.tenantId,
        event.runId,
        event.seq,
        event.type,
        event.at,
        event.causationId,
        JSON.stringify(event.data),
        event.prevHash,
        event.hash,
        event.schemaVersion,
      );
    }
  });
  return { commit: (events: readonly JournalEvent[]) => commit.immediate(events), close: () => db.close() };
}

/**
 * Runs `turnCount` tool turns of `perTurn` actions. Returns Yoke's per-turn µs (and the part spent
 * in journal.append), the paired raw per-turn µs, total seconds and every append's events.
 */
async function yokeRun(label: string, perTurn: number, synchronous: "full" | "normal" = "full", paired = true, turnCount = turns) {
  const inner = await createSqliteJournal({ filename: join(dir, `${label}.sqlite`), synchronous });
  const raw = paired ? rawStore(label, synchronous) : undefined;
  const appends: JournalEvent[][] = [];
  let inAppend = 0n;
  const journal: JournalV1 = {
    ...inner,
    specificationVersion: "v1",
    capabilities: inner.capabilities,
    append: async (scope, seq, drafts, options) => {
      const before = process.hrtime.bigint();
      const result = await inner.append(scope, seq, drafts, options);
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
    ...Array.from({ length: turnCount }, (_, turn) => callTools(names.map((name) => ({ id: `call_${turn}_${name}`, name, args: { n: turn } })))),
    say("done"),
  ];
  const perTurnUs: number[] = [];
  const appendUs: number[] = [];
  const rawUs: number[] = [];
  let turnStart: bigint | undefined;
  let appendAtStart = 0n;
  const harness = createHarness({
    journal,
    provider: createScriptedModel(steps, { recordCalls: false }),
    tools: names.map(noop),
    tenantId: "tenant_bench",
    clock: steppingClock(1_700_000_000_000, 1),
    ids: sequentialIdSource(),
    maxTurns: turnCount + 2,
    onEvent: (event) => {
      if (event.type !== "turn.started") return;
      // turn.started is stored by the append that closes the previous turn (its outcomes and
      // this turn's request): the last two appends are that turn's two transactions.
      const now = process.hrtime.bigint();
      if (turnStart !== undefined) {
        perTurnUs.push(Number(now - turnStart) / 1e3);
        appendUs.push(Number(inAppend - appendAtStart) / 1e3);
      }
      if (appends.length % 2 !== 1) throw new Error(`turn.started after ${appends.length} appends: the turn shape changed`);
      if (raw !== undefined) {
        if (appends.length === 1)
          raw.commit(appends[0]!); // run.started + the first request
        else {
          raw.commit(appends.at(-2)!);
          raw.commit(appends.at(-1)!);
          rawUs.push(Number(process.hrtime.bigint() - now) / 1e3);
        }
      }
      turnStart = process.hrtime.bigint();
      appendAtStart = inAppend;
    },
  });
  const start = process.hrtime.bigint();
  const result = await harness.start("benchmark task");
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (result.outcome?.status !== "completed") throw new Error(`bench run ended ${result.outcome?.status}`);
  await inner.close();
  raw?.close();
  return { perTurnUs, appendUs, rawUs, seconds, appends };
}

/**
 * The floor under any hash-chained journal: a Yoke run's stored turns appended again through
 * `@yoke/journal` alone (sealing: canonical JSON + SHA-256 chain, then SQLite), no harness,
 * each turn's pair of appends timed and paired with the raw transactions of the same rows.
 */
async function journalFloor(label: string, appends: readonly JournalEvent[][]): Promise<{ journalUs: number[]; rawUs: number[] }> {
  const journal = await createSqliteJournal({ filename: join(dir, `${label}-floor.sqlite`), synchronous: "full" });
  const raw = rawStore(`${label}-floor`, "full");
  const scope = { tenantId: appends[0]![0]!.tenantId, runId: appends[0]![0]!.runId };
  const draftsOf = (events: readonly JournalEvent[]) => events.map(({ type, at, causationId, data }) => ({ type, at, causationId, data }));
  let seq = (await journal.append(scope, 0, draftsOf(appends[0]!))).lastSeq + 1;
  raw.commit(appends[0]!);
  const journalUs: number[] = [];
  const rawUs: number[] = [];
  for (let turn = 0; 2 + turn * 2 < appends.length - 2; turn++) {
    const first = appends[1 + turn * 2]!;
    const second = appends[2 + turn * 2]!;
    const start = process.hrtime.bigint();
    seq = (await journal.append(scope, seq, draftsOf(first))).lastSeq + 1;
    seq = (await journal.append(scope, seq, draftsOf(second))).lastSeq + 1;
    const middle = process.hrtime.bigint();
    raw.commit(first);
    raw.commit(second);
    journalUs.push(Number(middle - start) / 1e3);
    rawUs.push(Number(process.hrtime.bigint() - middle) / 1e3);
  }
  await journal.close();
  raw.close();
  return { journalUs, rawUs };
}

await yokeRun("warmup", 2);
const floorRatios: number[] = [];
const overFloor: number[] = [];
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
  const order = round % 2 === 0 ? (["full", "normal"] as const) : (["normal", "full"] as const);
  for (const synchronous of order) {
    const run = await yokeRun(`${synchronous}-${round}`, 2, synchronous);
    const yokeMedian = median(run.perTurnUs);
    const rawMedian = median(run.rawUs);
    if (synchronous === "full") {
      yokeTurn.push(yokeMedian);
      rawTurn.push(rawMedian);
      ratios.push(yokeMedian / rawMedian);
      appendsPerTurn = (run.appends.length - 3) / turns; // minus the first append and the final answer's two
      const floor = await journalFloor(`${synchronous}-${round}`, run.appends);
      floorRatios.push(median(floor.journalUs) / median(floor.rawUs));
      overFloor.push(yokeMedian / median(floor.journalUs));
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
// Flatness: in one 800-turn paired FULL run, the median tool turn over turns 50–99 against
// turns 750–799 (the same process and JIT state; only the history behind each turn differs),
// with the paired raw transactions of the same windows.
const yokeAt50: number[] = [];
const yokeAt800: number[] = [];
const rawAt50: number[] = [];
const rawAt800: number[] = [];
for (let round = 0; round < Math.max(3, rounds); round++) {
  const run = await yokeRun(`flat-${round}`, 2, "full", true, 800);
  yokeAt50.push(median(run.perTurnUs.slice(50, 100)));
  yokeAt800.push(median(run.perTurnUs.slice(750, 800)));
  rawAt50.push(median(run.rawUs.slice(50, 100)));
  rawAt800.push(median(run.rawUs.slice(750, 800)));
}
const throughput: number[] = [];
for (let round = 0; round < rounds; round++) {
  const run = await yokeRun(`throughput-${round}`, 4, "full", false);
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
    journalFloorRatio: median(floorRatios),
    turnOverJournalRatio: median(overFloor),
    yokeTurnAt50Us: median(yokeAt50),
    yokeTurnAt800Us: median(yokeAt800),
    rawTurnAt50Us: median(rawAt50),
    rawTurnAt800Us: median(rawAt800),
    appendsPerTurn,
    turnBytes,
  }),
);
