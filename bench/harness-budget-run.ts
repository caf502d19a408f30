// One run of the budget benchmark's turn (a scripted model, two no-op tools per turn), for
// harness-budget-instructions.ts to count under callgrind: `bare` (no budget, no loop
// detection), `plain` (no budget) or `budget` (every dimension bounded, with a pricing table).
// usage: node harness-budget-run.ts <bare|plain|budget> <turns>
import { z } from "zod";
import { createMemoryJournal } from "@yoke/journal";
import { sequentialIdSource, steppingClock } from "@yoke/protocol";
import { createHarness, defineTool, type BudgetOptions } from "@yoke/runtime";
import { callTools, createScriptedModel, say } from "@yoke/testkit";

const variant = process.argv[2] ?? "plain";
const turns = Number(process.argv[3] ?? "10");
const noop = (name: string) =>
  defineTool({ name, description: `does nothing (${name})`, input: z.object({ n: z.number() }), sideEffect: "none", execute: async () => "ok" });
const BENCH_BUDGET: BudgetOptions = {
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
const harness = createHarness({
  journal: createMemoryJournal(),
  provider: createScriptedModel(steps, { recordCalls: false }),
  tools: [noop("noop_a"), noop("noop_b")],
  tenantId: "tenant_bench",
  clock: steppingClock(1_700_000_000_000, 1),
  ids: sequentialIdSource(),
  maxTurns: turns + 1,
  ...(variant === "budget" ? { budget: BENCH_BUDGET } : {}),
  ...(variant === "bare" ? { loopDetection: false } : {}),
});
const result = await harness.start("benchmark task");
if (result.outcome?.status !== "completed") throw new Error(`bench run ended ${result.outcome?.status}`);
