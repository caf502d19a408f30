import type { BudgetOptions } from "../budget/budget-options.js";

/**
 * How much a run may use before it ends `budget_exhausted`: its turns (`maxTurns`) and its
 * hard limits per dimension (`budget`: tokens, spend, wall time, tool operations, fan-out).
 * One of the groups `HarnessOptions` is composed of.
 *
 * @example
 * ```ts
 * const limits: HarnessBudgetOptions = { maxTurns: 12, budget: { limits: { tokens: 200_000, tool_ops: 40 } } };
 * const harness = createHarness({ ...limits, provider, tools });
 * ```
 */
export interface HarnessBudgetOptions {
  /** Turns a run may start before it ends `budget_exhausted`. Default 20. Pinned in `run.started`. */
  maxTurns?: number;
  /**
   * Hard limits on what a run may use (`BudgetOptions`): every model call and every dispatch
   * reserves its worst case first and settles to what it used, journaled with the commits the
   * loop makes anyway; a reservation that does not fit ends the run `budget_exhausted`.
   */
  budget?: BudgetOptions;
}
