import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { callSignature } from "./call-signature.js";

/** Issue 33, item 3: what loop detection treats as one call. */
const RULES = { caseInsensitive: ["path", "options.owner", "options.tags"] };

const word = fc.stringMatching(/^[A-Za-z_./-][A-Za-z0-9_./-]{0,7}$/);
const words = fc.array(word, { minLength: 1, maxLength: 4 });
const spacing = fc.constantFrom(" ", "  ", "\t", "\n", " \u00a0 ", "\r\n ");
const padding = fc.constantFrom("", " ", "   ", "\t", "\n", "\u200b", " \ufeff");

/** `parts` joined by one space: what a variation must come back to. */
const plain = (parts: readonly string[]) => parts.join(" ");
/** `parts` joined by the whitespace runs drawn, padded at both ends. */
const spaced = (parts: readonly string[]) =>
  fc
    .tuple(fc.array(spacing, { minLength: parts.length, maxLength: parts.length }), padding, padding)
    .map(([gaps, before, after]) => before + parts.map((part, index) => (index === 0 ? part : gaps[index]! + part)).join("") + after);
/** `text` with the case of each letter drawn. */
const recased = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((flips) => [...text].map((char, index) => (flips[index] ? char.toUpperCase() : char.toLowerCase())).join(""));
/** `entries` as an object whose keys come in an order drawn. */
const reordered = <T>(entries: readonly [string, T][]) =>
  fc.array(fc.nat(), { minLength: entries.length, maxLength: entries.length }).map((ranks) =>
    Object.fromEntries(
      entries
        .map((entry, index) => [ranks[index]!, entry] as const)
        .sort((a, b) => a[0] - b[0])
        .map(([, entry]) => entry),
    ),
  );

const call = fc.record({
  path: words,
  query: words,
  owner: words,
  tags: fc.array(words, { maxLength: 3 }),
  count: fc.integer(),
  extra: fc.dictionary(fc.stringMatching(/^x_[a-z]{1,5}$/), words, { maxKeys: 3 }),
});
type Call = typeof call extends fc.Arbitrary<infer T> ? T : never;

function canonicalInput(c: Call) {
  return {
    path: plain(c.path),
    query: plain(c.query),
    options: { owner: plain(c.owner), tags: c.tags.map(plain) },
    count: c.count,
    ...Object.fromEntries(Object.entries(c.extra).map(([key, value]) => [key, plain(value)])),
  };
}

/** The same arguments in another dress: whitespace, key order and, where declared, case. */
function variation(c: Call) {
  const caseless = (parts: string[]) => spaced(parts).chain(recased);
  return fc
    .record({
      path: caseless(c.path),
      query: spaced(c.query),
      owner: caseless(c.owner),
      tags: fc.tuple(...c.tags.map(caseless)),
      extra: fc.tuple(...Object.values(c.extra).map(spaced)),
    })
    .chain((drawn) =>
      fc
        .tuple(
          reordered([
            ["owner", drawn.owner],
            ["tags", drawn.tags],
          ] as [string, unknown][]),
        )
        .chain(([options]) =>
          reordered([
            ["path", drawn.path],
            ["query", drawn.query],
            ["options", options],
            ["count", c.count],
            ...Object.keys(c.extra).map((key, index) => [key, drawn.extra[index]] as [string, unknown]),
          ]),
        ),
    );
}

/** A failing result whose message mixes words with counters, times and ids. */
const failure = fc.array(fc.oneof(word, fc.constant("#")), { minLength: 1, maxLength: 8 });
const volatile = fc.oneof(
  fc.nat().map(String),
  fc.tuple(fc.nat(23), fc.nat(59), fc.nat(59)).map(([h, m, s]) => `${h}:${m}:${s}`),
  fc.tuple(fc.nat(999), fc.nat(999)).map(([a, b]) => `${a}.${b}`),
  fc.uuid(),
  fc.stringMatching(/^[0-9a-f]{7}[0-9][0-9a-f]{0,24}$/),
);
const told = (template: readonly string[]) =>
  fc.tuple(fc.array(volatile, { minLength: template.length, maxLength: template.length }), fc.nat(), fc.nat()).map(([numbers, startedAt, durationMs]) => {
    const text = template.map((part, index) => (part === "#" ? numbers[index]! : part)).join(" ");
    return {
      status: "error",
      content: [{ type: "text", text }],
      error: { code: "TOOL_FAILED", message: text },
      timing: { startedAt, endedAt: startedAt + durationMs, durationMs },
    };
  });

describe("callSignature", () => {
  it("is the same for cosmetic variations: whitespace, key order, declared case, volatile numbers and ids of a failure, timing", () => {
    fc.assert(
      fc.property(
        call.chain((c) => fc.tuple(fc.constant(c), variation(c))),
        failure.chain((template) => fc.tuple(told(template), told(template))),
        ([c, varied], [first, second]) => {
          expect(callSignature("rev", varied, second, RULES)).toBe(callSignature("rev", canonicalInput(c), first, RULES));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("still tells apart what differs: a letter of an argument, case where not declared, a number in a result that succeeded", () => {
    fc.assert(
      fc.property(call, word, fc.nat(), fc.nat(), (c, suffix, n, m) => {
        const input = canonicalInput(c);
        const ok = (text: string) => ({ status: "ok", content: [{ type: "text", text }], timing: { startedAt: 0, endedAt: 0, durationMs: 0 } });
        const base = callSignature("rev", input, ok(`${n} jobs left`), RULES);
        expect(callSignature("rev", { ...input, query: `${input.query}${suffix}` }, ok(`${n} jobs left`), RULES)).not.toBe(base);
        expect(callSignature("rev", { ...input, path: `${input.path} ${suffix}` }, ok(`${n} jobs left`), RULES)).not.toBe(base);
        if (input.query.toUpperCase() !== input.query) {
          expect(callSignature("rev", { ...input, query: input.query.toUpperCase() }, ok(`${n} jobs left`), RULES)).not.toBe(base);
        }
        if (n !== m) expect(callSignature("rev", input, ok(`${m} jobs left`), RULES)).not.toBe(base);
        expect(callSignature("other", input, ok(`${n} jobs left`), RULES)).not.toBe(base);
      }),
      { numRuns: 300 },
    );
  });

  it("invisible characters and Unicode composition are cosmetics too", () => {
    const result = { status: "ok", content: [{ type: "text", text: "caf\u00e9" }], timing: { startedAt: 0, endedAt: 0, durationMs: 0 } };
    const decomposed = { ...result, content: [{ type: "text", text: "cafe\u0301" }] };
    expect(callSignature("rev", { path: "re\u200bad\u200dme" }, decomposed)).toBe(callSignature("rev", { path: "readme" }, result));
  });

  it("without rules, case counts; a failure's code counts", () => {
    const failed = (code: string) => ({ status: "error", content: [], error: { code, message: "x" }, timing: { startedAt: 0, endedAt: 0, durationMs: 0 } });
    expect(callSignature("rev", { path: "README" }, failed("TOOL_FAILED"))).not.toBe(callSignature("rev", { path: "readme" }, failed("TOOL_FAILED")));
    expect(callSignature("rev", { path: "a" }, failed("TOOL_FAILED"))).not.toBe(callSignature("rev", { path: "a" }, failed("TOOL_TIMEOUT")));
  });
});
