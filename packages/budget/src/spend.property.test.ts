// spendOf answers in doubles while the exact spend fits them, and in BigInt past that: both
// paths must give the same integer, rounded up once, over any usage and price, small or near
// Number.MAX_SAFE_INTEGER (the run's seed: scripts/vitest-setup.ts, YOKE_FC_SEED replays one).
import type { ModelPrice } from "@yoke/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bigSpendOf, spendOf } from "./pricing.js";

const MAX = Number.MAX_SAFE_INTEGER;
/** Counts and prices: mostly realistic, sometimes a multiple of a million (the rounding edge), sometimes huge. */
const count = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 200_000 }), weight: 4 },
  { arbitrary: fc.integer({ min: 0, max: 9_000 }).map((n) => n * 1_000_000), weight: 1 },
  { arbitrary: fc.integer({ min: 0, max: MAX }), weight: 1 },
);
const priceArb: fc.Arbitrary<ModelPrice> = fc.record(
  {
    provider: fc.constant("p"),
    model: fc.constant("m"),
    input: count,
    output: count,
    cacheRead: count,
    cacheWrite: count,
  },
  { requiredKeys: ["provider", "model", "input", "output"] },
);
const usageArb = fc.record(
  { inputTokens: count, outputTokens: count, cacheReadTokens: count, cacheWriteTokens: count },
  { requiredKeys: ["inputTokens", "outputTokens"] },
);

/** The result or the error code: both paths must fail alike (spend past the largest safe integer). */
function outcome(run: () => number): number | string {
  try {
    return run();
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

describe("spendOf: the double path and the BigInt path agree", () => {
  it("over random usages and prices", () => {
    fc.assert(
      fc.property(priceArb, usageArb, (price, usage) => {
        expect(outcome(() => spendOf(price, usage))).toEqual(outcome(() => bigSpendOf(price, usage)));
      }),
      { numRuns: 2_000 },
    );
  });

  it("at the edges: exact multiples of a million, one past them, and the largest totals doubles hold", () => {
    const price: ModelPrice = { provider: "p", model: "m", input: 1, output: 1 };
    for (const tokens of [0, 1, 999_999, 1_000_000, 1_000_001, 2_000_000, MAX - 1, MAX]) {
      expect(spendOf(price, { inputTokens: tokens, outputTokens: 0 })).toBe(bigSpendOf(price, { inputTokens: tokens, outputTokens: 0 }));
    }
    // 2^53 - 1 tokens at 1 micro-unit a million, then past the safe range in the sum of two terms.
    expect(spendOf(price, { inputTokens: MAX, outputTokens: 0 })).toBe(Math.ceil(MAX / 1_000_000));
    expect(spendOf(price, { inputTokens: MAX, outputTokens: MAX })).toBe(bigSpendOf(price, { inputTokens: MAX, outputTokens: MAX }));
    // A product past the safe range whose spend is not: the BigInt path answers, exactly.
    expect(spendOf({ ...price, input: 1_000_000 }, { inputTokens: 10_000_000_000, outputTokens: 1 })).toBe(10_000_000_001);
  });

  it("refuses what the BigInt path refuses: a negative or fractional count, a spend past the largest safe integer", () => {
    const price: ModelPrice = { provider: "p", model: "m", input: 1_000_000, output: 1_000_000 };
    expect(() => spendOf(price, { inputTokens: -1, outputTokens: 0 })).toThrow(/non-negative integer/);
    expect(() => spendOf(price, { inputTokens: 1.5, outputTokens: 0 })).toThrow(/non-negative integer/);
    expect(outcome(() => spendOf({ ...price, input: MAX }, { inputTokens: MAX, outputTokens: 0 }))).toBe("BUDGET_INVALID");
  });
});
