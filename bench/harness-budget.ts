// What budget admission costs a turn: the same run (a scripted model, two no-op tools per
// turn) with and without a budget bounding every dimension with a pricing table, in
// interleaved rounds in one process. Per-turn time is turn.started to turn.started; the
// budget's cost per turn is the difference of the medians, reported against the
// budget-free turn. A third variant turns loop detection off too (`bare`): the turn before
// issue 15, so budget + loop detection together are measured against it. `journal`: memory
// (the harness's CPU alone: the dearest ratio) or a SQLite file at synchronous=NORMAL (what
// a run pays on disk). Machine-independent figures next to the times: events and journaled
// bytes (canonical JSON of each event's data) per turn, for each variant.
// usage: node harness-budget.ts <turns> <rounds> <memory|sqlite>
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryJournal, createSqliteJournal } from "@yoke/journal";
import { canonicalJson, sequentialIdSource, steppingClock, type JournalV1 } from "@yoke/protocol";
import { createHarness } from "@yoke/runtime";
import { type BudgetVariant, budgetTurnOptions } from "./budget-turn.ts";
import { median } from "./stats.ts";

const turns = Number(process.argv[2] ?? "100");
const rounds = Number(process.argv[3] ?? "5");
const store = process.argv[4] === "sqlite" ? "sqlite" : "memory";
const dir = mkdtempSync(join(tmpdir(), "yoke-bench-budget-"));

type Variant = BudgetVariant;
const shape = new Map<Variant, { eventsPerTurn: number; bytesPerTurn: number }>();

async function perTurnUs(variant: Variant, round: number): Promise<number[]> {
  const journal: JournalV1 =
    store === "memory" ? createMemoryJournal() : await createSqliteJournal({ filename: join(dir, `${variant}-${round}.sqlite`), synchronous: "normal" });
  const starts: bigint[] = [];
  const harness = createHarness({
    journal,
    ...budgetTurnOptions(variant, turns),
    tenantId: "tenant_bench",
    clock: steppingClock(1_700_000_000_000, 1),
    ids: sequentialIdSource(),
    onEvent: (event) => {
      if (event.type === "turn.started") starts.push(process.hrtime.bigint());
    },
  });
  const result = await harness.start("benchmark task");
  if (result.outcome?.status !== "completed") throw new Error(`bench run ended ${result.outcome?.status}`);
  if (!shape.has(variant)) {
    // Outside the timed turns: what each turn journals, counted over whole turns.
    let events = 0;
    let bytes = 0;
    let counting = false;
    let counted = 0;
    for await (const event of journal.read({ tenantId: "tenant_bench", runId: result.runId })) {
      // Turns 2 … turns-1: whole tool turns (the first opens the run, the last answers).
      if (event.type === "turn.started") {
        const index = Number((event.data as { index?: number }).index);
        counting = index >= 2 && index <= turns - 1;
        if (counting) counted++;
      }
      if (!counting) continue;
      events++;
      bytes += canonicalJson(event.data).length;
    }
    shape.set(variant, { eventsPerTurn: events / Math.max(1, counted), bytesPerTurn: Math.round(bytes / Math.max(1, counted)) });
  }
  await journal.close();
  return starts.slice(1).map((at, index) => Number(at - starts[index]!) / 1e3);
}

const bare: number[] = [];
const plain: number[] = [];
const budgeted: number[] = [];
// One warm-up of each, then interleaved rounds: every variant sees the same JIT and GC weather.
for (const variant of ["bare", "plain", "budget"] as const) await perTurnUs(variant, -1);
for (let round = 0; round < rounds; round++) {
  bare.push(median(await perTurnUs("bare", round)));
  plain.push(median(await perTurnUs("plain", round)));
  budgeted.push(median(await perTurnUs("budget", round)));
}
rmSync(dir, { recursive: true, force: true });
const bareUs = median(bare);
const plainUs = median(plain);
const budgetUs = median(budgeted);
const events = (variant: Variant) => shape.get(variant)!;
console.log(
  JSON.stringify({
    turns,
    rounds,
    store,
    bareTurnUs: bareUs,
    plainTurnUs: plainUs,
    budgetTurnUs: budgetUs,
    overheadUs: budgetUs - plainUs,
    overheadRatio: (budgetUs - plainUs) / plainUs,
    issueOverheadRatio: (budgetUs - bareUs) / bareUs,
    bareEventsPerTurn: events("bare").eventsPerTurn,
    plainEventsPerTurn: events("plain").eventsPerTurn,
    budgetEventsPerTurn: events("budget").eventsPerTurn,
    eventRatio: events("budget").eventsPerTurn / events("plain").eventsPerTurn,
    plainBytesPerTurn: events("plain").bytesPerTurn,
    budgetBytesPerTurn: events("budget").bytesPerTurn,
    byteRatio: events("budget").bytesPerTurn / events("plain").bytesPerTurn,
  }),
);
