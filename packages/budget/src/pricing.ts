import { createHash } from "node:crypto";
import { type BudgetAmounts, canonicalJson, type ModelPrice, type PricingTable, PricingTableSchema, type Usage, YokeError } from "@yoke/protocol";
import { invalid } from "./amounts.js";

/** A model a run may call. */
export interface ModelRef {
  provider: string;
  model: string;
}

/** The usage figures pricing reads (a protocol `Usage` fits). `inputTokens` includes cached input. */
export type PricedUsage = Pick<Usage, "inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWriteTokens">;

/**
 * A validated pricing table: price lookups (exact model id first, then the longest matching
 * `prefix*`), spend and charges of a usage, and the table's revision.
 *
 * @example
 * ```ts
 * const pricing = createPricing(table);
 * pricing.assertPriced([{ provider: "openai", model: "gpt-4.1" }]); // PRICING_MISSING if not priced
 * pricing.charge({ provider: "openai", model: "gpt-4.1" }, response.usage); // { tokens, input_tokens, output_tokens, spend }
 * ```
 */
export interface Pricing {
  readonly table: PricingTable;
  /** SHA-256 (hex) of the table's canonical JSON: journaled in `budget.opened`. */
  readonly revision: string;
  /** The price of a model, or undefined when the table has none. */
  find(ref: ModelRef): ModelPrice | undefined;
  /** Spend of a usage in micro-units (rounded up); PRICING_MISSING when the model has no price. */
  priceOf(ref: ModelRef, usage: PricedUsage): number;
  /** The charge of a usage: tokens by kind and spend; PRICING_MISSING when the model has no price. */
  charge(ref: ModelRef, usage: PricedUsage): BudgetAmounts;
  /** Throws PRICING_MISSING naming every model of `models` the table cannot price. */
  assertPriced(models: readonly ModelRef[]): void;
}

const compiled = new WeakMap<PricingTable, Pricing>();

/**
 * Validates a pricing table (BUDGET_INVALID when malformed: a negative or fractional price,
 * a `*` anywhere but at the end of a model, the same provider and model twice) and returns
 * its lookups. Memoized per table object.
 *
 * @example
 * ```ts
 * const pricing = createPricing({ version: 1, id: "acme-2026-12", currency: "USD", models: [
 *   { provider: "anthropic", model: "claude-sonnet-4*", input: 3_000_000, output: 15_000_000, cacheRead: 300_000 },
 * ] });
 * pricing.priceOf({ provider: "anthropic", model: "claude-sonnet-4-5" }, { inputTokens: 1_000, outputTokens: 100 }); // 4500
 * ```
 */
export function createPricing(table: PricingTable): Pricing {
  const cached = compiled.get(table);
  if (cached !== undefined) return cached;
  const parsed = PricingTableSchema.safeParse(table);
  if (!parsed.success) throw invalid(`pricing table is malformed: ${parsed.error.message}`);
  const exact = new Map<string, ModelPrice>();
  const prefixes: { provider: string; prefix: string; price: ModelPrice }[] = [];
  for (const price of parsed.data.models) {
    const star = price.model.indexOf("*");
    if (star !== -1 && star !== price.model.length - 1) throw invalid(`pricing table ${table.id}: "${price.model}": "*" may only end a model prefix`);
    const key = `${price.provider}\u0000${price.model}`;
    if (exact.has(key) || prefixes.some((entry) => `${entry.provider}\u0000${entry.prefix}*` === key)) {
      throw invalid(`pricing table ${table.id}: ${price.provider} ${price.model} is priced twice`, { provider: price.provider, model: price.model });
    }
    if (star === -1) exact.set(key, price);
    else prefixes.push({ provider: price.provider, prefix: price.model.slice(0, -1), price });
  }
  prefixes.sort((a, b) => b.prefix.length - a.prefix.length);
  const revision = createHash("sha256").update(canonicalJson(parsed.data)).digest("hex");

  const find = (ref: ModelRef): ModelPrice | undefined =>
    exact.get(`${ref.provider}\u0000${ref.model}`) ?? prefixes.find((entry) => entry.provider === ref.provider && ref.model.startsWith(entry.prefix))?.price;
  const priceFor = (ref: ModelRef): ModelPrice => {
    const price = find(ref);
    if (price === undefined) throw missing(table.id, [ref]);
    return price;
  };
  const pricing: Pricing = {
    table: parsed.data,
    revision,
    find,
    priceOf: (ref, usage) => spendOf(priceFor(ref), usage),
    charge: (ref, usage) => usageCharge(usage, priceFor(ref)),
    assertPriced: (models) => {
      const unpriced = models.filter((ref) => find(ref) === undefined);
      if (unpriced.length > 0) throw missing(table.id, unpriced);
    },
  };
  compiled.set(table, pricing);
  return pricing;
}

function missing(tableId: string, models: readonly ModelRef[]): YokeError {
  const unique = [...new Map(models.map((ref) => [`${ref.provider}/${ref.model}`, { provider: ref.provider, model: ref.model }])).values()];
  return new YokeError(
    "PRICING_MISSING",
    `pricing table ${tableId} has no price for ${unique.map((ref) => `${ref.provider}/${ref.model}`).join(", ")}: its spend could not be bounded`,
    { details: { pricingId: tableId, missing: unique } },
  );
}

const MILLION = 1_000_000n;

function tokenCount(value: number | undefined, name: string): bigint {
  if (value === undefined) return 0n;
  if (!Number.isSafeInteger(value) || value < 0) throw invalid(`usage: ${name} must be a non-negative integer, got ${String(value)}`);
  return BigInt(value);
}

/**
 * Spend of one usage at one price, in integer micro-units, rounded up once per charge:
 * uncached input at `input`, cache reads at `cacheRead` and cache writes at `cacheWrite`
 * (both default to `input`), output at `output`; prices are per million tokens.
 *
 * @example
 * ```ts
 * spendOf({ provider: "openai", model: "gpt-4.1", input: 2_000_000, output: 8_000_000 }, { inputTokens: 1, outputTokens: 0 }); // 2
 * ```
 */
export function spendOf(price: ModelPrice, usage: PricedUsage): number {
  return smallSpendOf(price, usage) ?? bigSpendOf(price, usage);
}

const MICRO = 1_000_000;

/** A count as a number (0 when absent); BUDGET_INVALID unless a non-negative safe integer. */
function countOf(value: number | undefined, name: string): number {
  if (value === undefined) return 0;
  if (!Number.isSafeInteger(value) || value < 0) throw invalid(`usage: ${name} must be a non-negative integer, got ${String(value)}`);
  return value;
}

/**
 * `spendOf` in doubles, exact while every product and their sum stay at most
 * Number.MAX_SAFE_INTEGER (rounding is monotonic, so a result past it means the exact value is
 * too: then undefined, and the BigInt path answers). The division by a million is corrected to
 * the exact quotient and remainder, then rounded up once.
 */
function smallSpendOf(price: ModelPrice, usage: PricedUsage): number | undefined {
  const input = countOf(usage.inputTokens, "inputTokens");
  const output = countOf(usage.outputTokens, "outputTokens");
  const cacheRead = countOf(usage.cacheReadTokens, "cacheReadTokens");
  const cacheWrite = countOf(usage.cacheWriteTokens, "cacheWriteTokens");
  const cached = cacheRead + cacheWrite;
  const prices = [price.input, price.cacheRead ?? price.input, price.cacheWrite ?? price.input, price.output];
  // A price the table schema would refuse (fractional, negative): the BigInt path's error.
  if (cached > Number.MAX_SAFE_INTEGER || !prices.every((value) => Number.isSafeInteger(value) && value >= 0)) return undefined;
  const uncached = input > cached ? input - cached : 0;
  const terms = [uncached * prices[0]!, cacheRead * prices[1]!, cacheWrite * prices[2]!, output * prices[3]!];
  let total = 0;
  for (const term of terms) {
    if (term > Number.MAX_SAFE_INTEGER) return undefined;
    total += term;
  }
  if (total > Number.MAX_SAFE_INTEGER) return undefined;
  let quotient = Math.floor(total / MICRO);
  let remainder = total - quotient * MICRO;
  if (remainder < 0) {
    quotient--;
    remainder += MICRO;
  } else if (remainder >= MICRO) {
    quotient++;
    remainder -= MICRO;
  }
  return remainder > 0 ? quotient + 1 : quotient;
}

/** `spendOf` in BigInt: exact for any safe-integer usage and price; BUDGET_INVALID when the spend is past the largest safe integer. */
export function bigSpendOf(price: ModelPrice, usage: PricedUsage): number {
  const input = tokenCount(usage.inputTokens, "inputTokens");
  const output = tokenCount(usage.outputTokens, "outputTokens");
  const cacheRead = tokenCount(usage.cacheReadTokens, "cacheReadTokens");
  const cacheWrite = tokenCount(usage.cacheWriteTokens, "cacheWriteTokens");
  const uncached = input > cacheRead + cacheWrite ? input - cacheRead - cacheWrite : 0n;
  const inputPrice = BigInt(price.input);
  const total =
    uncached * inputPrice +
    cacheRead * BigInt(price.cacheRead ?? price.input) +
    cacheWrite * BigInt(price.cacheWrite ?? price.input) +
    output * BigInt(price.output);
  const spend = (total + MILLION - 1n) / MILLION;
  if (spend > BigInt(Number.MAX_SAFE_INTEGER)) throw invalid(`usage: spend ${spend} is past the largest safe integer`);
  return Number(spend);
}

/**
 * Spend of a usage for a model under a pricing table, in integer micro-units (rounded up).
 * PRICING_MISSING when the table has no price for the model: never a silent zero.
 *
 * @example
 * ```ts
 * priceOf(table, { provider: "openai", model: "gpt-4.1-mini" }, { inputTokens: 10_000, outputTokens: 500 });
 * ```
 */
export function priceOf(table: PricingTable, ref: ModelRef, usage: PricedUsage): number {
  return createPricing(table).priceOf(ref, usage);
}

/**
 * The charge of a usage: `tokens` (input + output), `input_tokens`, `output_tokens`, the cache
 * figures the usage has, and `spend` at `price` (left out without a price: only where spend
 * is not bounded).
 *
 * @example
 * ```ts
 * usageCharge({ inputTokens: 1_000, outputTokens: 200, cacheReadTokens: 800 }, price);
 * // { tokens: 1200, input_tokens: 1000, output_tokens: 200, cache_read_tokens: 800, spend: … }
 * ```
 */
export function usageCharge(usage: PricedUsage, price?: ModelPrice): BudgetAmounts {
  const input = Number(tokenCount(usage.inputTokens, "inputTokens"));
  const output = Number(tokenCount(usage.outputTokens, "outputTokens"));
  const charge: BudgetAmounts = { tokens: input + output, input_tokens: input, output_tokens: output };
  if (usage.cacheReadTokens !== undefined) charge.cache_read_tokens = Number(tokenCount(usage.cacheReadTokens, "cacheReadTokens"));
  if (usage.cacheWriteTokens !== undefined) charge.cache_write_tokens = Number(tokenCount(usage.cacheWriteTokens, "cacheWriteTokens"));
  if (price !== undefined) charge.spend = spendOf(price, usage);
  return charge;
}

/**
 * The revision of a pricing table: SHA-256 (hex) of its canonical JSON, as journaled in
 * `budget.opened.pricing.revision`. BUDGET_INVALID when the table is malformed.
 *
 * @example
 * ```ts
 * pricingRevisionOf(table); // "3b0c…" (64 hex characters; key order does not matter)
 * ```
 */
export function pricingRevisionOf(table: PricingTable): string {
  return createPricing(table).revision;
}

/**
 * Throws YokeError PRICING_MISSING naming every model of `models` the table has no price for
 * (`details.missing`): call it when a run starts, so an unpriced model is a configuration
 * error, not a zero cost.
 *
 * @example
 * ```ts
 * assertPriced(table, [{ provider: "openai", model: "gpt-4.1" }, { provider: "anthropic", model: "claude-opus-4" }]);
 * ```
 */
export function assertPriced(table: PricingTable, models: readonly ModelRef[]): void {
  createPricing(table).assertPriced(models);
}

/**
 * The worst case a model call can charge, to reserve before it starts: `inputTokens` (the
 * compiled request's count) and `outputTokens` (the output reserve, i.e. the request's
 * max_tokens), every input token possibly a cache read or write, and spend with each input
 * token at the dearest of the input, cache-read and cache-write prices (left out without a
 * price). Settling the call's `usageCharge` never exceeds it, so a model call that keeps to
 * its max_tokens never overshoots.
 *
 * @example
 * ```ts
 * ledger.reserve({ reservationId, parentId: budgetId, amounts: { turns: 1, ...worstCaseCharge(price, { inputTokens: 1_800, outputTokens: 1_024 }) }, attribution });
 * ```
 */
export function worstCaseCharge(price: ModelPrice | undefined, request: { inputTokens: number; outputTokens: number }): BudgetAmounts {
  const input = Number(tokenCount(request.inputTokens, "inputTokens"));
  const output = Number(tokenCount(request.outputTokens, "outputTokens"));
  const charge: BudgetAmounts = { tokens: input + output, input_tokens: input, output_tokens: output, cache_read_tokens: input, cache_write_tokens: input };
  if (price !== undefined) {
    const dearest = Math.max(price.input, price.cacheRead ?? price.input, price.cacheWrite ?? price.input);
    charge.spend = spendOf({ ...price, input: dearest, cacheRead: dearest, cacheWrite: dearest }, { inputTokens: input, outputTokens: output });
  }
  return charge;
}
