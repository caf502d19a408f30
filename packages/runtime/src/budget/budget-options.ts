import { BudgetAmountsSchema, PricingTableSchema, YokeError, type BudgetAmounts, type PricingTable, type ProviderAdapterV1 } from "@yoke/protocol";
import { assertPriced, pricingRevisionOf } from "@yoke/budget";

/**
 * A run's budget (`HarnessOptions.budget`): hard limits per dimension, the pricing table that
 * turns usage into spend, and the output tokens a model call is assumed to use at worst.
 *
 * @example
 * ```ts
 * const harness = createHarness({
 *   provider,
 *   tools,
 *   budget: {
 *     limits: { turns: 10, tokens: 200_000, spend: 500_000, tool_ops: 40 }, // spend: 0.50 USD in micro-units
 *     pricing: { version: 1, id: "prices-2026-12", currency: "USD", models: [{ provider: "openai", model: "gpt-4o*", input: 2_500_000, output: 10_000_000 }] },
 *     outputReserve: 2_048,
 *   },
 * });
 * const result = await harness.start("…");
 * if (result.outcome?.status === "budget_exhausted") result.outcome.budget; // e.g. "spend"
 * ```
 */
export interface BudgetOptions {
  /** Limits per dimension (integers; spend in micro-units of the pricing table's currency). A missing dimension is unbounded. */
  readonly limits: BudgetAmounts;
  /** Required with a `spend` limit; every model the provider may answer with must be priced (PRICING_MISSING). */
  readonly pricing?: PricingTable;
  /** Output tokens held for each model call; default what the request lets the model produce (`context.maxOutputTokens`, else the provider's `capabilities.maxOutputTokens`). */
  readonly outputReserve?: number;
}

/** A budget option, validated once when the harness is created. */
export interface ResolvedBudget {
  readonly limits: BudgetAmounts;
  readonly pricing: PricingTable | undefined;
  readonly pricingRef: { readonly id: string; readonly revision: string; readonly currency: string } | undefined;
  readonly outputReserve: number | undefined;
}

/**
 * Checks `HarnessOptions.budget`: limits are integers per known dimension (BUDGET_INVALID), a
 * `spend` limit comes with a pricing table (CONFIG_INVALID), and the table prices the model
 * the provider calls (PRICING_MISSING): a missing price is a configuration error at start,
 * never a zero cost.
 */
export function resolveBudget(option: BudgetOptions | undefined, provider: ProviderAdapterV1): ResolvedBudget | undefined {
  if (option === undefined) return undefined;
  const limits = BudgetAmountsSchema.safeParse(option?.limits);
  if (!limits.success) {
    throw new YokeError(
      "BUDGET_INVALID",
      `budget.limits: ${limits.error.issues.map((issue) => `${issue.path.join(".") || "limits"}: ${issue.message}`).join("; ")}`,
      {
        details: { option: "budget.limits" },
      },
    );
  }
  const outputReserve = option.outputReserve;
  if (outputReserve !== undefined && (!Number.isInteger(outputReserve) || outputReserve < 1)) {
    throw new YokeError("CONFIG_INVALID", "budget.outputReserve must be a positive integer", { details: { option: "budget.outputReserve" } });
  }
  let pricing: PricingTable | undefined;
  if (option.pricing !== undefined) {
    const parsed = PricingTableSchema.safeParse(option.pricing);
    if (!parsed.success) {
      throw new YokeError("BUDGET_INVALID", `budget.pricing is not a pricing table: ${parsed.error.issues.map((issue) => issue.message).join("; ")}`, {
        details: { option: "budget.pricing" },
      });
    }
    pricing = parsed.data;
    assertPriced(pricing, [{ provider: provider.provider, model: provider.modelId }]);
  } else if (limits.data.spend !== undefined) {
    throw new YokeError("CONFIG_INVALID", "budget.limits.spend needs budget.pricing: without prices spend cannot be bounded", {
      details: { option: "budget.pricing" },
    });
  }
  return {
    limits: definedAmounts(limits.data),
    pricing,
    pricingRef: pricing === undefined ? undefined : { id: pricing.id, revision: pricingRevisionOf(pricing), currency: pricing.currency },
    outputReserve,
  };
}

/** `amounts` without the dimensions given as `undefined` (`{ ...limits, wall_time: undefined }`): one left out, so unbounded, and nothing `undefined` to journal. */
export function definedAmounts(amounts: BudgetAmounts): BudgetAmounts {
  return Object.fromEntries(Object.entries(amounts).filter(([, value]) => value !== undefined)) as BudgetAmounts;
}
