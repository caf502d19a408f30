// A model that never stops and what the runaway tests measure: a scripted model whose every
// answer calls tools again (it has far more steps than any budget lets it use), the tools it
// calls, and the charges a run's journal holds per dimension.
import { budgetEntriesOf, type BudgetDimension, type PricingTable, type Usage, type YokeEvent } from "@yoke/protocol";
import { defineTool } from "@yoke/runtime";
import { callTools, createScriptedModel, type ScriptedModel } from "@yoke/testkit";
import { z } from "zod";

/** Far more steps than any budget below allows: the run must halt on its budget, not on the script. */
export const ENDLESS = 2_000;

export const PRICING: PricingTable = {
  version: 1,
  id: "runaway-prices",
  currency: "USD",
  // 3 USD per million input tokens, 15 per million output tokens.
  models: [{ provider: "scripted", model: "scripted-*", input: 3_000_000, output: 15_000_000 }],
};

export const poke = defineTool({
  name: "poke",
  description: "Pokes item n. Read-only.",
  input: z.object({ n: z.number().int() }),
  sideEffect: "none",
  execute: async ({ n }) => `poked ${n}`,
});

/** A model that answers every request with `calls` more poke calls (or, with `spawn`, a new subagent) and `usage`, and never a final answer. */
export function endlessModel(options: { calls?: number; usage?: Partial<Usage>; spawn?: boolean } = {}): ScriptedModel {
  const calls = options.calls ?? 1;
  if (options.spawn === true) {
    let spawned = 0;
    return createScriptedModel(
      Array.from({ length: ENDLESS }, () => () => ({
        ...callTools([{ name: "spawn_subagent", args: { task: `poke item ${++spawned}` } }]),
        usage: options.usage ?? {},
      })),
    );
  }
  const usage = options.usage ?? { inputTokens: 40, outputTokens: 20 };
  let turn = 0;
  return createScriptedModel(
    Array.from({ length: ENDLESS }, () => () => {
      turn += 1;
      return {
        ...callTools(
          Array.from({ length: calls }, (_, index) => ({ name: "poke", args: { n: turn * 10 + index } })),
          "More, always more.",
        ),
        usage,
      };
    }),
  );
}

/** Every budget step of a run in order: `budget.reserved` / `budget.settled`, and the ones the work's own events carry. */
export function budgetStepsOf(events: readonly YokeEvent[]) {
  return events.flatMap((event) => budgetEntriesOf(event));
}

/** Per dimension: the total charged by the run's settlements. */
export function chargedOf(events: readonly YokeEvent[]): Partial<Record<BudgetDimension, number>> {
  const total: Partial<Record<BudgetDimension, number>> = {};
  for (const step of budgetStepsOf(events)) {
    if (step.kind !== "settled") continue;
    for (const [dimension, value] of Object.entries(step.data.charged) as [BudgetDimension, number][]) total[dimension] = (total[dimension] ?? 0) + value;
  }
  return total;
}

/**
 * The charges past what their reservation held, per settled reservation: the in-flight
 * overshoot a halt allows (at most one piece of work may have one in the binding dimension).
 */
export function overshootsOf(events: readonly YokeEvent[], dimension: BudgetDimension): number[] {
  const held = new Map<string, number>();
  const over: number[] = [];
  for (const step of budgetStepsOf(events)) {
    if (step.kind === "reserved") held.set(step.data.reservationId, step.data.amounts[dimension] ?? 0);
    if (step.kind === "settled" && step.data.overshoot === true) {
      const excess = (step.data.charged[dimension] ?? 0) - (held.get(step.data.reservationId) ?? 0);
      if (excess > 0) over.push(excess);
    }
  }
  return over;
}

/** Every reservation the run journaled, and whether each was settled. */
export function openReservationsOf(events: readonly YokeEvent[]): string[] {
  const open = new Set<string>();
  for (const step of budgetStepsOf(events)) {
    if (step.kind === "reserved") open.add(step.data.reservationId);
    else open.delete(step.data.reservationId);
  }
  return [...open];
}
