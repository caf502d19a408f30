import { createPricing, spendOf } from "@yoke/budget";
import type { ModelPrice, Usage } from "@yoke/protocol";
import type { BudgetDeps } from "./budget-carriers.js";

/** The budget's prices of the run's models: what usage costs, and the most a request can. */
export class ModelPricing {
  #lastPrice: { readonly provider: string; readonly model: string; readonly price: ModelPrice | undefined } | undefined;
  readonly #deps: Pick<BudgetDeps, "budget" | "provider">;

  constructor(deps: Pick<BudgetDeps, "budget" | "provider">) {
    this.#deps = deps;
  }

  /** What `usage` costs: at the answering model's price, else the requested model's; never zero for lack of a price (then what was held). */
  spendOf(usage: Usage, answered: { provider: string; model: string }, held: number): number {
    const price = this.priceOf(answered) ?? this.priceOf({ provider: this.#deps.provider.provider, model: this.#deps.provider.modelId });
    return price === undefined ? held : spendOf(price, usage);
  }

  /** The price of `model` in the budget's table (undefined when it has none); the last model looked up is remembered (a run calls one model, turn after turn). */
  priceOf(model: { provider: string; model: string }): ModelPrice | undefined {
    const last = this.#lastPrice;
    if (last !== undefined && last.provider === model.provider && last.model === model.model) return last.price;
    const price = createPricing(this.#deps.budget!.pricing!).find(model);
    this.#lastPrice = { provider: model.provider, model: model.model, price };
    return price;
  }

  /** The most `input` + `output` tokens can cost: every input token at the dearer of the input and cache-write prices. */
  worstSpend(input: number, output: number): number {
    const model = { provider: this.#deps.provider.provider, model: this.#deps.provider.modelId };
    const price = this.priceOf(model);
    // Checked at start (PRICING_MISSING): a run's own model is always priced.
    if (price === undefined) return createPricing(this.#deps.budget!.pricing!).priceOf(model, { inputTokens: input, outputTokens: output });
    const plain = spendOf(price, { inputTokens: input, outputTokens: output });
    const written = spendOf(price, { inputTokens: input, outputTokens: output, cacheWriteTokens: input });
    return Math.max(plain, written);
  }
}
