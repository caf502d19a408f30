import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@yoke/protocol";
import { canonicalText } from "./canonical-frame.js";

/** canonicalJson's result, or the code of the error it throws. */
function outcome(write: (value: unknown) => string, value: unknown): string {
  try {
    return write(value);
  } catch (error) {
    return `threw ${(error as { code?: string }).code ?? String(error)}`;
  }
}

const key = fc.oneof(fc.constantFrom("role", "content", "type", "text", "__proto__", "toJSON", "0", "1", "10", "a", "B", "é", "", "\uD83D"), fc.string({ unit: "binary", maxLength: 6 }));
const leaf = fc.oneof(
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.double(),
  fc.integer(),
  fc.constantFrom(-0, 1e21, 5e-324, true, false, null, undefined, Number.NaN, Infinity),
  fc.constantFrom(new Date(0), () => 1, 10n, Symbol.for("x")),
);
const value = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, tie("array"), tie("object")),
  array: fc.array(tie("any"), { maxLength: 5 }),
  object: fc.oneof(
    fc.dictionary(key, tie("any"), { maxKeys: 6 }),
    fc.dictionary(key, tie("any"), { maxKeys: 6, noNullPrototype: false }),
  ),
})).any;

describe("canonical frames", () => {
  it("are canonicalJson's bytes, or its error, for any value", () => {
    fc.assert(
      fc.property(value, (input) => {
        expect(outcome(canonicalText, input)).toBe(outcome(canonicalJson, input));
      }),
      { numRuns: 5_000 },
    );
  });

  it("hands deep nesting and cycles to canonicalJson", () => {
    let deep: unknown = "leaf";
    for (let depth = 0; depth < 300; depth++) deep = depth % 2 ? [deep] : { deep };
    expect(outcome(canonicalText, deep)).toBe(outcome(canonicalJson, deep));
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(outcome(canonicalText, cycle)).toBe(outcome(canonicalJson, cycle));
    let shallow: unknown = 1;
    for (let depth = 0; depth < 100; depth++) shallow = { b: shallow, a: [depth] };
    expect(canonicalText(shallow)).toBe(canonicalJson(shallow));
  });
});
