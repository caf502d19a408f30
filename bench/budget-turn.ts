// The turn the budget benchmarks measure (harness-budget.ts in microseconds,
// harness-budget-instructions.ts via harness-budget-run.ts in instructions): a scripted model
// calling two no-op tools a turn, and the budget that bounds every dimension with a pricing table.
import { z } from "zod";
import { defineTool, type BudgetOptions, type HarnessOptions } from "@yoke/runtime";
import { callTools, createScriptedModel, say } from "@yoke/testkit";

/** Which harness: no budget and no loop detection (`bare`), no budget (`plain`), or `budget`. */
export type BudgetVariant = "bare" | "plain" | "budget";

const noop = (name: string) =>
  defineTool({ name, description: `does nothing (${name})`, input: z.object({ n: z.number() }), sideEffect: "none", execute: async () => "ok" });

export const BENCH_BUDGET: BudgetOptions = {
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

/** The harness options of a `turns`-turn run of `variant`, but for the journal and clock. */
export function budgetTurnOptions(variant: BudgetVariant, turns: number): Pick<HarnessOptions, "provider" | "tools" | "maxTurns" | "budget" | "loopDetection"> {
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
  return {
    provider: createScriptedModel(steps, { recordCalls: false }),
    tools: [noop("noop_a"), noop("noop_b")],
    maxTurns: turns + 1,
    ...(variant === "budget" ? { budget: BENCH_BUDGET } : {}),
    ...(variant === "bare" ? { loopDetection: false } : {}),
  };
}
