// What budget admission costs a turn: the same run (a scripted model, two no-op tools per
// turn) with and without a budget bounding every dimension with a pricing table, in
// interleaved rounds in one process. Per-turn time is turn.started to turn.started; the
// budget's cost per turn is the difference of the medians, reported against the
// budget-free turn. `journal`: memory (the harness's CPU alone: the dearest ratio) or a
// SQLite file at synchronous=NORMAL (what a run pays on disk).
// usage: node harness-budget.ts <turns> <rounds> <memory|sqlite>
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { createMemoryJournal, createSqliteJournal } from "@yoke/journal";
import { sequentialIdSource, steppingClock, type JournalV1 } from "@yoke/protocol";
import { createHarness, defineTool, type BudgetOptions } from "@yoke/runtime";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { median } from "./stats.ts";

const turns = Number(process.argv[2] ?? "100");
const rounds = Number(process.argv[3] ?? "5");
const store = process.argv[4] === "sqlite" ? "sqlite" : "memory";
const dir = mkdtempSync(join(tmpdir(), "yoke-bench-budget-"));

const noop = (name: string) =>
  defineTool({ name, description: `does nothing (${name})`, input: z.object({ n: z.number() }), sideEffect: "none", execute: async () => "ok" });

const BUDGET: BudgetOptions = {
  limits: {
    turns: 1_000_000,
    tokens: 1_000_000_000,
    input_tokens: 1_000_000_000,
    output_tokens: 1_000_000_000,
    spend: 1_000_000_000_000,
    wall_time: 1_000_000_000,
    tool_ops: 1_000_000,
    concurrency: 64,
  },
  pricing: { version: 1, id: "bench", currency: "USD", models: [{ provider: "scripted", model: "scripted-*", input: 3_000_000, output: 15_000_000 }] },
  outputReserve: 1_024,
};

async function perTurnUs(withBudget: boolean, round: number): Promise<number[]> {
  const steps = [
    ...Array.from({ length: turns - 1 }, (_, turn) => ({
      ...callTools([
        { id: `call_${turn}_a`, name: "noop_a", args: { n: turn } },
        { id: `call_${turn}_b`, name: "noop_b", args: { n: turn } },
      ]),
      usage: { inputTokens: 500, outputTokens: 40 },
    })),
    say("done"),
  ];
  const journal: JournalV1 =
    store === "memory" ? createMemoryJournal() : await createSqliteJournal({ filename: join(dir, `${withBudget}-${round}.sqlite`), synchronous: "normal" });
  const starts: bigint[] = [];
  const harness = createHarness({
    journal,
    provider: createScriptedModel(steps, { recordCalls: false }),
    tools: [noop("noop_a"), noop("noop_b")],
    tenantId: "tenant_bench",
    clock: steppingClock(1_700_000_000_000, 1),
    ids: sequentialIdSource(),
    maxTurns: turns + 1,
    ...(withBudget ? { budget: BUDGET } : {}),
    onEvent: (event) => {
      if (event.type === "turn.started") starts.push(process.hrtime.bigint());
    },
  });
  const result = await harness.start("benchmark task");
  if (result.outcome?.status !== "completed") throw new Error(`bench run ended ${result.outcome?.status}`);
  await journal.close();
  return starts.slice(1).map((at, index) => Number(at - starts[index]!) / 1e3);
}

const plain: number[] = [];
const budgeted: number[] = [];
// One warm-up of each, then interleaved rounds: both variants see the same JIT and GC weather.
await perTurnUs(false, -1);
await perTurnUs(true, -1);
for (let round = 0; round < rounds; round++) {
  plain.push(median(await perTurnUs(false, round)));
  budgeted.push(median(await perTurnUs(true, round)));
}
rmSync(dir, { recursive: true, force: true });
const plainUs = median(plain);
const budgetUs = median(budgeted);
console.log(
  JSON.stringify({
    turns,
    rounds,
    store,
    plainTurnUs: plainUs,
    budgetTurnUs: budgetUs,
    overheadUs: budgetUs - plainUs,
    overheadRatio: (budgetUs - plainUs) / plainUs,
  }),
);
