import { createHash } from "node:crypto";
import { canonicalJson, type PricingTable, YokeError } from "@yoke/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assertPriced, createBudgetLedger, createPricing, priceOf, pricingRevisionOf, spendOf, usageCharge, worstCaseCharge } from "./index.js";

const table: PricingTable = {
  version: 1,
  id: "acme-2026-12",
  currency: "USD",
  models: [
    { provider: "anthropic", model: "claude-*", input: 1_000_000, output: 5_000_000 },
    { provider: "anthropic", model: "claude-sonnet-4*", input: 3_000_000, output: 15_000_000, cacheRead: 300_000, cacheWrite: 3_750_000 },
    { provider: "anthropic", model: "claude-sonnet-4-5", input: 2_000_000, output: 10_000_000 },
    { provider: "openai", model: "gpt-4.1", input: 2_000_000, output: 8_000_000 },
  ],
};

function expectCode(run: () => unknown, code: "BUDGET_INVALID" | "PRICING_MISSING"): YokeError {
  try {
    run();
  } catch (error) {
    expect(YokeError.hasCode(error, code), String(error)).toBe(true);
    return error as YokeError;
  }
  return expect.unreachable(`expected ${code}`);
}

describe("pricing", () => {
  it("prices per million tokens in integer micro-units, rounding up once per charge", () => {
    // 1,000 × 3 + 100 × 15 = 4,500 micro-units.
    expect(priceOf(table, { provider: "anthropic", model: "claude-sonnet-4-0" }, { inputTokens: 1_000, outputTokens: 100 })).toBe(4_500);
    // One input token at 2,000,000 per million is exactly 2 micro-units.
    expect(priceOf(table, { provider: "openai", model: "gpt-4.1" }, { inputTokens: 1, outputTokens: 0 })).toBe(2);
    const cheap = { provider: "x", model: "m", input: 1, output: 1 };
    expect(spendOf(cheap, { inputTokens: 1, outputTokens: 0 })).toBe(1); // 1e-6 micro-units rounds up to 1
    expect(spendOf(cheap, { inputTokens: 1_000_000, outputTokens: 0 })).toBe(1);
    expect(spendOf(cheap, { inputTokens: 1_000_001, outputTokens: 0 })).toBe(2);
    expect(spendOf(cheap, { inputTokens: 0, outputTokens: 0 })).toBe(0);
    // Rounded once over the whole charge, not per token kind: 0.5 + 0.5 = 1, not 2.
    expect(spendOf({ provider: "x", model: "m", input: 1, output: 1 }, { inputTokens: 500_000, outputTokens: 500_000 })).toBe(1);
  });

  it("charges cache reads and writes at their prices, defaulting to the input price", () => {
    const usage = { inputTokens: 10_000, outputTokens: 1_000, cacheReadTokens: 6_000, cacheWriteTokens: 2_000 };
    // sonnet-4*: 2,000 uncached × 3 + 6,000 × 0.3 + 2,000 × 3.75 + 1,000 × 15 = 6,000 + 1,800 + 7,500 + 15,000
    expect(priceOf(table, { provider: "anthropic", model: "claude-sonnet-4-1" }, usage)).toBe(30_300);
    // claude-*: no cache prices, so all 10,000 input tokens at 1 + 1,000 × 5
    expect(priceOf(table, { provider: "anthropic", model: "claude-haiku-4" }, usage)).toBe(15_000);
  });

  it("matches the exact model id first, then the longest prefix ending in *; the provider must match", () => {
    const pricing = createPricing(table);
    expect(pricing.find({ provider: "anthropic", model: "claude-sonnet-4-5" })?.model).toBe("claude-sonnet-4-5");
    expect(pricing.find({ provider: "anthropic", model: "claude-sonnet-4-5-20250929" })?.model).toBe("claude-sonnet-4*");
    expect(pricing.find({ provider: "anthropic", model: "claude-opus-4" })?.model).toBe("claude-*");
    expect(pricing.find({ provider: "anthropic", model: "gpt-4.1" })).toBeUndefined();
    expect(pricing.find({ provider: "openai", model: "gpt-4.1-mini" })).toBeUndefined();
  });

  it("a model without a price is PRICING_MISSING naming each missing model, never a zero cost", () => {
    const error = expectCode(
      () =>
        assertPriced(table, [
          { provider: "openai", model: "gpt-4.1" },
          { provider: "openai", model: "gpt-5" },
          { provider: "google", model: "gemini-2.5-pro" },
          { provider: "openai", model: "gpt-5" },
        ]),
      "PRICING_MISSING",
    );
    expect(error.message).toContain("openai/gpt-5, google/gemini-2.5-pro");
    expect(error.details.missing).toEqual([
      { provider: "openai", model: "gpt-5" },
      { provider: "google", model: "gemini-2.5-pro" },
    ]);
    expect(() => assertPriced(table, [{ provider: "openai", model: "gpt-4.1" }])).not.toThrow();
    expectCode(() => priceOf(table, { provider: "openai", model: "o3" }, { inputTokens: 1, outputTokens: 1 }), "PRICING_MISSING");
    expectCode(() => createPricing(table).charge({ provider: "openai", model: "o3" }, { inputTokens: 1, outputTokens: 1 }), "PRICING_MISSING");
  });

  it("usageCharge gives tokens by kind and spend", () => {
    const price = table.models[3]!;
    expect(usageCharge({ inputTokens: 1_000, outputTokens: 200, cacheReadTokens: 800 }, price)).toEqual({
      tokens: 1_200,
      input_tokens: 1_000,
      output_tokens: 200,
      cache_read_tokens: 800,
      spend: 3_600,
    });
    expect(usageCharge({ inputTokens: 5, outputTokens: 6 })).toEqual({ tokens: 11, input_tokens: 5, output_tokens: 6 });
    expect(createPricing(table).charge({ provider: "openai", model: "gpt-4.1" }, { inputTokens: 1_000, outputTokens: 200 }).spend).toBe(3_600);
    expectCode(() => usageCharge({ inputTokens: -1, outputTokens: 0 }), "BUDGET_INVALID");
    expectCode(() => usageCharge({ inputTokens: 1.5, outputTokens: 0 }), "BUDGET_INVALID");
  });

  it("pricingRevisionOf is the SHA-256 of the canonical JSON: key order does not matter, any price does", () => {
    const expected = createHash("sha256").update(canonicalJson(table)).digest("hex");
    expect(pricingRevisionOf(table)).toBe(expected);
    const reordered = JSON.parse(JSON.stringify({ models: table.models, currency: "USD", id: table.id, version: 1 })) as PricingTable;
    expect(pricingRevisionOf(reordered)).toBe(expected);
    const changed = { ...table, models: [...table.models.slice(0, 3), { ...table.models[3]!, output: 8_000_001 }] };
    expect(pricingRevisionOf(changed)).not.toBe(expected);
  });

  it("a malformed table is BUDGET_INVALID", () => {
    const bad = (models: unknown[], extra: object = {}) => expectCode(() => createPricing({ ...table, models, ...extra } as PricingTable), "BUDGET_INVALID");
    bad([{ provider: "openai", model: "m", input: -1, output: 1 }]);
    bad([{ provider: "openai", model: "m", input: 0.5, output: 1 }]);
    bad([{ provider: "openai", model: "m", input: 1 }]);
    bad([{ provider: "openai", model: "m*x", input: 1, output: 1 }]);
    bad([
      { provider: "openai", model: "m", input: 1, output: 1 },
      { provider: "openai", model: "m", input: 2, output: 2 },
    ]);
    bad([
      { provider: "openai", model: "m*", input: 1, output: 1 },
      { provider: "openai", model: "m*", input: 2, output: 2 },
    ]);
    bad([], { version: 2 });
    bad([], { currency: "" });
  });

  it("property: spend is the exact rational cost rounded up (never below, less than one micro-unit above)", () => {
    const tokens = fc.integer({ min: 0, max: 10_000_000 });
    const perMillion = fc.integer({ min: 0, max: 100_000_000 });
    fc.assert(
      fc.property(tokens, tokens, tokens, tokens, perMillion, perMillion, perMillion, perMillion, (input, output, read, write, pi, po, pr, pw) => {
        const price = { provider: "p", model: "m", input: pi, output: po, cacheRead: pr, cacheWrite: pw };
        const inputTokens = input + read + write;
        const spend = spendOf(price, { inputTokens, outputTokens: output, cacheReadTokens: read, cacheWriteTokens: write });
        const exact = BigInt(input) * BigInt(pi) + BigInt(output) * BigInt(po) + BigInt(read) * BigInt(pr) + BigInt(write) * BigInt(pw);
        expect(BigInt(spend) * 1_000_000n >= exact).toBe(true);
        expect(BigInt(spend) * 1_000_000n - exact < 1_000_000n).toBe(true);
      }),
    );
  });

  it("worstCaseCharge holds every token as possibly cached, at the dearest input price", () => {
    const price = { provider: "anthropic", model: "m", input: 3_000_000, output: 15_000_000, cacheRead: 300_000, cacheWrite: 3_750_000 };
    expect(worstCaseCharge(price, { inputTokens: 1_000, outputTokens: 100 })).toEqual({
      tokens: 1_100,
      input_tokens: 1_000,
      output_tokens: 100,
      cache_read_tokens: 1_000,
      cache_write_tokens: 1_000,
      spend: 5_250, // 1,000 × 3.75 + 100 × 15
    });
    expect(worstCaseCharge(undefined, { inputTokens: 1, outputTokens: 2 })).not.toHaveProperty("spend");
  });

  it("property: a call that keeps to its reserved input and max_tokens settles its usageCharge without an overshoot", () => {
    const perMillion = fc.integer({ min: 0, max: 50_000_000 });
    fc.assert(
      fc.property(
        fc.record({
          input: perMillion,
          output: perMillion,
          cacheRead: fc.option(perMillion, { nil: undefined }),
          cacheWrite: fc.option(perMillion, { nil: undefined }),
        }),
        fc.integer({ min: 0, max: 200_000 }),
        fc.integer({ min: 0, max: 32_000 }),
        // Shares in percent of what was reserved (0 and 100 included).
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 100 }),
        (prices, inputTokens, outputTokens, inPercent, outPercent, readPercent, writePercent) => {
          const { cacheRead, cacheWrite, ...base } = prices;
          const price = {
            provider: "p",
            model: "m",
            ...base,
            ...(cacheRead === undefined ? {} : { cacheRead }),
            ...(cacheWrite === undefined ? {} : { cacheWrite }),
          };
          const usedInput = Math.floor((inputTokens * inPercent) / 100);
          const read = Math.floor((usedInput * readPercent) / 100);
          const write = Math.floor(((usedInput - read) * writePercent) / 100);
          const usage = { inputTokens: usedInput, outputTokens: Math.floor((outputTokens * outPercent) / 100), cacheReadTokens: read, cacheWriteTokens: write };
          const limits = { tokens: 1e9, input_tokens: 1e9, output_tokens: 1e9, cache_read_tokens: 1e9, cache_write_tokens: 1e9, spend: 1e15 };
          const ledger = createBudgetLedger({ budgetId: "b", limits });
          const reserved = ledger.reserve({
            reservationId: "call",
            parentId: "b",
            amounts: worstCaseCharge(price, { inputTokens, outputTokens }),
            attribution: { kind: "model_call", runId: "r" },
          });
          expect(reserved.ok).toBe(true);
          expect(ledger.settle("call", usageCharge(usage, price)).overshoot).toBeUndefined();
        },
      ),
    );
  });
});
