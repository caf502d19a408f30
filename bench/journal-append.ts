// Journal append throughput on SQLite: one transaction per turn of 5 events of ~300 bytes,
// Yoke's SQLite journal against raw better-sqlite3 doing the same inserts into the same
// table with the same pragmas, rounds interleaved in one process. Both sides start from the
// same event objects: the raw side serializes each event's data with JSON.stringify (what any
// store must do) and stores placeholder hashes; Yoke validates, writes canonical JSON and
// computes the hash chain. Yoke runs in four variants: no head witness and no lease (the
// append path before run leases and head witnesses existed), the head witness, the lease, and
// both (the default a harness uses). Prints JSON: medians of events/s, of µs per append, and
// of the per-round ratios against raw and against the bare variant.
// usage: node journal-append.ts <full|normal> <transactionsPerRound> <rounds>
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import { GENESIS_HASH, canonicalJson, type AppendOptions, type EventDraft } from "@yoke/protocol";
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

const VARIANTS = {
  bare: { witness: false, lease: false },
  witness: { witness: true, lease: false },
  lease: { witness: false, lease: true },
  both: { witness: true, lease: true },
} as const;
type Variant = keyof typeof VARIANTS;

async function yokeRound(round: number, variant: Variant): Promise<number> {
  const { witness, lease } = VARIANTS[variant];
  const journal = await createSqliteJournal({ filename: join(dir, `yoke-${variant}-${round}.sqlite`), synchronous, headWitness: witness ? "file" : "none" });
  const scope = { tenantId: "tenant_bench", runId: `run_${round}` };
  const options: AppendOptions = lease ? { lease: await journal.leases.acquire(scope, { ownerId: "bench", ttlMs: 600_000 }) } : {};
  const drafts = Array.from({ length: perRound }, (_, turn) => draftsFor(turn));
  const start = process.hrtime.bigint();
  for (let turn = 0; turn < perRound; turn++) await journal.append(scope, turn * EVENTS_PER_TURN, drafts[turn]!, options);
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
      insert.run(
        "tenant_bench",
        runId,
        turn * EVENTS_PER_TURN + index,
        draft.type,
        draft.at,
        draft.causationId ?? null,
        JSON.stringify(draft.data),
        GENESIS_HASH,
        GENESIS_HASH,
        1,
      );
    });
  });
  const start = process.hrtime.bigint();
  for (let turn = 0; turn < perRound; turn++) commitTurn.immediate(turn, drafts[turn]!);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  db.close();
  return (perRound * EVENTS_PER_TURN) / seconds;
}

const yoke: Record<Variant, number[]> = { bare: [], witness: [], lease: [], both: [] };
const raw: number[] = [];
const bytes = canonicalJson(draftsFor(1)[1]).length;
const variants = Object.keys(VARIANTS) as Variant[];
rawRound(-1); // warm-up
for (const variant of variants) await yokeRound(-1, variant);
// Rotate the order every round, so no side always runs while another's writes settle.
for (let round = 0; round < rounds; round++) {
  const order: ("raw" | Variant)[] = ["raw", ...variants];
  for (let shift = 0; shift < round % order.length; shift++) order.push(order.shift()!);
  for (const side of order) {
    if (side === "raw") raw.push(rawRound(round));
    else yoke[side].push(await yokeRound(round, side));
  }
}
rmSync(dir, { recursive: true, force: true });
// Rounds are paired, so each ratio is the median of per-round ratios.
const perRoundRatio = (a: readonly number[], b: readonly number[]) => median(a.map((value, round) => value / b[round]!));
/** Microseconds per append (one transaction of EVENTS_PER_TURN events) from events/s. */
const usPerAppend = (eventsPerSecond: number) => (1e6 * EVENTS_PER_TURN) / eventsPerSecond;
const extraUs = (variant: Variant) => median(yoke[variant].map((value, round) => usPerAppend(value) - usPerAppend(yoke.bare[round]!)));
console.log(
  JSON.stringify({
    synchronous,
    eventBytes: bytes,
    raw: median(raw),
    yoke: median(yoke.both),
    ratio: perRoundRatio(yoke.both, raw),
    variants: Object.fromEntries(
      variants.map((variant) => [
        variant,
        {
          eventsPerSecond: median(yoke[variant]),
          usPerAppend: median(yoke[variant].map(usPerAppend)),
          vsRaw: perRoundRatio(yoke[variant], raw),
          vsBare: perRoundRatio(yoke[variant], yoke.bare),
          extraUsPerAppend: variant === "bare" ? 0 : extraUs(variant),
        },
      ]),
    ),
  }),
);
