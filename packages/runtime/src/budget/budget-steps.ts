// How a budget step rides on the run's drafts, and the small arithmetic admission shares (see run-budget.ts).
import type { BudgetLedger } from "@yoke/budget";
import type { BudgetAmounts, BudgetDimension, BudgetEntry, ChargeAttribution, Outcome, YokeEventDraft } from "@yoke/protocol";

/** Why admission refused: the outcome the run ends with, naming the dimension, what was asked and what was left. */
export type Exhaustion = Extract<Outcome, { status: "budget_exhausted" }>;

/** The id `check` runs under: never reserved, never journaled. */
export const CHECK_ID = "reservation_admission-check";

/** Amounts summed per dimension (one pass, no intermediate sums: `check` reads keys in any order). */
export function sumOf(amounts: readonly BudgetAmounts[]): BudgetAmounts {
  if (amounts.length === 1) return amounts[0]!;
  const sum: Record<string, number> = {};
  for (const each of amounts)
    for (const key in each) {
      const value = each[key as BudgetDimension];
      if (value !== undefined) sum[key] = (sum[key] ?? 0) + value;
    }
  return sum;
}

/** A tool about to be dispatched, as admission sees it: its name and its timeout. */
export interface DispatchedTool {
  readonly name: string;
  readonly timeoutMs: number;
}

/** Share `index` of `total` split evenly over `count` (the first `total % count` shares one more). */
export function evenShare(total: number, count: number, index: number): number {
  return Math.floor(total / count) + (index < total % count ? 1 : 0);
}

const STARTS: Readonly<Record<string, readonly string[]>> = {
  model_call: ["model.requested"],
  tool_attempt: ["action.admitted", "action.executing"],
  verifier: ["verifier.started"],
};
const ENDS: Readonly<Record<string, readonly string[]>> = {
  model_call: ["model.responded"],
  tool_attempt: ["action.committed", "action.failed", "action.uncertain"],
  verifier: ["verifier.finished"],
};

/** Whether `draft` starts (or ends) the work `attribution` names: same kind of event, same turn / attempt / verifier run. */
export function carries(draft: YokeEventDraft, kind: BudgetEntry["kind"], attribution: ChargeAttribution): boolean {
  if (!(kind === "reserved" ? STARTS : ENDS)[attribution.kind]?.includes(draft.type)) return false;
  const data = draft.data as { turnId?: string; attemptId?: string; verifierRunId?: string; reserved?: unknown; settled?: unknown };
  if (data[kind] !== undefined) return false;
  switch (attribution.kind) {
    case "model_call":
      return data.turnId === attribution.turnId;
    case "tool_attempt":
      return data.attemptId === attribution.attemptId;
    default:
      return data.verifierRunId === attribution.verifierRunId;
  }
}

export function exhausted(result: Extract<ReturnType<BudgetLedger["reserve"]>, { ok: false }>): Exhaustion {
  const remaining = Math.max(0, result.limit - result.committed);
  return {
    status: "budget_exhausted",
    budget: result.dimension as BudgetDimension,
    limit: result.limit,
    reservationId: result.reservationId,
    requested: result.requested,
    remaining,
  };
}

/** Whether admission refused. */
export function isExhaustion<T extends object>(value: T | Exhaustion | undefined): value is Exhaustion {
  return value !== undefined && "status" in value;
}
