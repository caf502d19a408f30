import fc from "fast-check";
import { describe, expect, test, vi } from "vitest";
import { referenceGlob } from "./__fixtures__/reference-decide.js";
import { compilePatterns, isValidPattern } from "./glob.js";

describe("glob patterns", () => {
  test.each([
    ["account:*", "account:1", true],
    ["account:*", "account:", true],
    ["account:*", "account", false],
    ["*", "", true],
    ["", "", true],
    ["", "a", false],
    ["a*a", "a", false],
    ["a*a", "aa", true],
    ["*ab*ab*", "abab", true],
    ["*ab*ab*", "aab", false],
    ["a.c", "abc", false],
    ["a+c", "a+c", true],
    ["[ab]", "a", false],
    ["\\*", "*", true],
    ["\\*", "x", false],
    ["\\\\*", "\\anything", true],
    ["a\\b", "ab", true],
  ])("%j against %j: %s", (pattern, value, expected) => {
    expect(compilePatterns([pattern]).test(value)).toBe(expected);
    expect(referenceGlob(pattern, value)).toBe(expected);
  });

  test("non-strings never match a pattern; null in a list matches absent (undefined or null) only", () => {
    const patterns = compilePatterns(["*"]);
    for (const value of [undefined, null, 1, true, {}, ["a"]]) expect(patterns.test(value)).toBe(false);
    const optional = compilePatterns([null, "x*"]);
    expect([undefined, null, "xy", "y", 0].map((value) => optional.test(value))).toEqual([true, true, true, false, false]);
  });

  test("a trailing lone backslash is not a pattern", () => {
    expect(isValidPattern("a\\")).toBe(false);
    expect(isValidPattern("a\\\\")).toBe(true);
  });

  test("a hostile value against a many-star pattern is scanned once: one forward search per middle part, whatever its length", () => {
    // An operation count, not a wall-clock bound: the matcher's only scans are indexOf calls on
    // the value (native, linear); a backtracking matcher would search again from earlier offsets,
    // and more often the longer the value.
    const searches = (value: string, pattern: string) => {
      const spy = vi.spyOn(String.prototype, "indexOf");
      try {
        const matched = compilePatterns([pattern]).test(value);
        const from = spy.mock.calls.filter((_, index) => spy.mock.contexts[index] === value).map((call) => call[1] ?? 0);
        return { matched, from };
      } finally {
        spy.mockRestore();
      }
    };
    for (const length of [2_000, 200_000]) {
      const hostile = searches(`${"a".repeat(length)}c`, "*a*a*a*a*a*a*b");
      expect(hostile.matched).toBe(false);
      // The suffix "b" fails first: nothing is searched at all.
      expect(hostile.from).toEqual([]);
      const value = `${"ab".repeat(length / 2)}c`;
      const scanned = searches(value, "*a*b*a*b*a*b*c");
      expect(scanned.matched).toBe(true);
      // Six middle parts, six searches, each starting where the previous match ended.
      expect(scanned.from).toEqual([0, 1, 2, 3, 4, 5]);
    }
  });

  test("property: agrees with a character-by-character reference on random patterns and values", () => {
    const alphabet = fc.constantFrom("a", "b", ":", "*", "\\");
    const pattern = fc
      .array(alphabet, { maxLength: 8 })
      .map((chars) => chars.join(""))
      .filter(isValidPattern);
    const value = fc.array(fc.constantFrom("a", "b", ":", "*", "\\"), { maxLength: 10 }).map((chars) => chars.join(""));
    fc.assert(
      fc.property(fc.array(pattern, { minLength: 1, maxLength: 3 }), value, (patterns, candidate) => {
        expect(compilePatterns(patterns).test(candidate)).toBe(patterns.some((one) => referenceGlob(one, candidate)));
      }),
      { numRuns: 2_000 },
    );
  });
});
