// Journal append throughput on SQLite: one transaction per turn of 5 events of ~300 bytes,
// Yoke's SQLite journal against raw better-sqlite3 doing the same inserts into the same
// table with the same pragmas, rounds interleaved in one process. Both sides start from the
// same event objects: the raw side serializes each event's data with JSON.stringify (what any
// store must do) and stores placeholder hashes; Yoke validates, writes canonical JSON and
// computes the hash chain. Prints JSON: medians of events/s and of the per-round ratio.
// usage: node journal-append.ts <full|normal> <transactionsPerRound> <rounds>
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import { GENESIS_HASH, canonicalJson, type EventDraft } from "@yoke/protocol";
import { median, openRawEvents } from "./stats.ts";

const [mode = "full", perRoundText = "300", roundsText = "5"] = process.argv.slice(2);
const synchronous = mode === "normal" ? "normal" : "full";
const perRound = Number(perRoundText);
const rounds = Number(roundsText);
const EVENTS_PER_TURN = 5;
const dir = mkdtempSync(join(tmpdir(), "yoke-bench-journal-"));

const payload = (turn: number, index: number) => ({
  turnId: `turn_${String(turn).padStart(14, "0")}`,
  note: "x".repeat(150),
  index,
  tool: { name: "read_file", path: `src/module-${index}.ts` },
});

function draftsFor(turn: number): EventDraft[] {
  return Array.from({ length: EVENTS_PER_TURN }, (_, index) => ({
    type: turn === 0 && index === 0 ? "run.started" : "bench.recorded",
    at: 1_700_000_000_000 + turn,
    causationId: `turn_${turn}`,
    data: payload(turn, index),
  }));
}

async function yokeRound(round: number): Promise<number> {
  const journal = await createSqliteJournal({ filename: join(dir, `yoke-${round}.sqlite`), synchronous });
  const scope = { tenantId: "tenant_bench", runId: `run_${round}` };
  const drafts = Array.from({ length: perRound }, (_, turn) => draftsFor(turn));
  const start = process.hrtime.bigint();
  for (let turn = 0; turn < perRound; turn++) await journal.append(scope, turn * EVENTS_PER_TURN, drafts[turn]!);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await journal.close();
  return (perRound * EVENTS_PER_TURN) / seconds;
}

function rawRound(round: number): number {
  const { db, insert } = openRawEvents(join(dir, `raw-${round}.sqlite`), synchronous);
  const runId = `run_${round}`;
  const drafts = Array.from({ length: perRound }, (_, turn) => draftsFor(turn));
  const commitTurn = db.transaction((turn: number, turnDrafts: EventDraft[]) => {
    turnDrafts.forEach((draft, index) => {
      insert.run("tenant_bench", runId, turn * EVENTS_PER_TURN + index, draft.type, draft.at, draft.causationId ?? null,
        JSON.stringify(draft.data), GENESIS_HASH, GENESIS_HASH, 1);
    });
  });
  const start = process.hrtime.bigint();
  for (let turn = 0; turn < perRound; turn++) commitTurn.immediate(turn, drafts[turn]!);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  db.close();
  return (perRound * EVENTS_PER_TURN) / seconds;
}

const yoke: number[] = [];
const raw: number[] = [];
const bytes = canonicalJson(draftsFor(1)[1]).length;
rawRound(-1); // warm-up
await yokeRound(-1);
// Alternate which side goes first, so neither always runs while the other's writes settle.
for (let round = 0; round < rounds; round++) {
  if (round % 2 === 0) {
    raw.push(rawRound(round));
    yoke.push(await yokeRound(round));
  } else {
    yoke.push(await yokeRound(round));
    raw.push(rawRound(round));
  }
}
rmSync(dir, { recursive: true, force: true });
// Rounds are paired (raw then Yoke, back to back), so the ratio is the median of per-round ratios.
const ratios = yoke.map((value, round) => value / raw[round]!);
console.log(JSON.stringify({ synchronous, eventBytes: bytes, yoke: median(yoke), raw: median(raw), ratio: median(ratios) }));
