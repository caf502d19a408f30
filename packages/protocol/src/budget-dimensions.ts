/**
 * The one list of budget dimensions. Everything else that names a dimension is derived from
 * it: `BUDGET_DIMENSIONS`, the zod schemas of amounts (and so `BudgetAmounts`), the fast
 * event check, and `@yoke/budget`'s vectors and per-dimension loops. Adding a dimension is one
 * line here (docs/decisions/0024-budget-dimensions.md says what else it takes: a journal
 * that names it must not be read by a reader that does not know it).
 *
 * - `unit`: what one of it is. Spend is in micro-units of the pricing table's currency
 *   (1 USD = 1,000,000); wall time in milliseconds of the injected clock.
 * - `kind`: a `counter` is charged what the work used; a `gauge` (concurrency) is held while
 *   the work runs and always released whole, never charged.
 * - `since`: the event schema version (`EVENT_SCHEMA_VERSION`) whose journals may name it.
 *
 * The order is the order of `BUDGET_DIMENSIONS` and of `@yoke/budget`'s vectors: append, never
 * reorder.
 */
export const BUDGET_DIMENSION_SPECS = [
  { name: "turns", unit: "turns", kind: "counter", since: 1 },
  { name: "tokens", unit: "tokens", kind: "counter", since: 1 },
  { name: "input_tokens", unit: "tokens", kind: "counter", since: 1 },
  { name: "output_tokens", unit: "tokens", kind: "counter", since: 1 },
  { name: "cache_read_tokens", unit: "tokens", kind: "counter", since: 1 },
  { name: "cache_write_tokens", unit: "tokens", kind: "counter", since: 1 },
  { name: "spend", unit: "micro-currency", kind: "counter", since: 1 },
  { name: "wall_time", unit: "milliseconds", kind: "counter", since: 1 },
  { name: "tool_ops", unit: "operations", kind: "counter", since: 1 },
  { name: "fan_out", unit: "children", kind: "counter", since: 1 },
  { name: "concurrency", unit: "in-flight", kind: "gauge", since: 1 },
] as const satisfies readonly BudgetDimensionSpec[];

/** One entry of `BUDGET_DIMENSION_SPECS`. */
export interface BudgetDimensionSpec {
  readonly name: string;
  readonly unit: "turns" | "tokens" | "micro-currency" | "milliseconds" | "operations" | "children" | "in-flight";
  readonly kind: "counter" | "gauge";
  readonly since: number;
}

type NamesOf<T extends readonly { readonly name: string }[]> = { readonly [K in keyof T]: T[K]["name"] };

/** The dimensions a run is bounded by, in `BUDGET_DIMENSION_SPECS`' order. */
export const BUDGET_DIMENSIONS = BUDGET_DIMENSION_SPECS.map((spec) => spec.name) as unknown as NamesOf<typeof BUDGET_DIMENSION_SPECS>;

/** The members of events that hold amounts: where a dimension a reader does not know would be found. */
const AMOUNT_MEMBERS: ReadonlySet<unknown> = new Set(["amounts", "charged", "released", "limits"]);

/**
 * The dimensions a schema's issues refuse as unknown members of amounts (`budget.opened`'s
 * limits, a reservation's amounts, a settlement's charge or release): what a reader names
 * when it refuses a journal written with a dimension it does not know.
 */
export function unknownBudgetDimensions(
  issues: readonly { readonly code: string; readonly path: readonly PropertyKey[]; readonly keys?: readonly string[] }[],
): string[] {
  const unknown: string[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys" && AMOUNT_MEMBERS.has(issue.path.at(-1)) && issue.keys !== undefined) unknown.push(...issue.keys);
  }
  return [...new Set(unknown)].sort();
}
