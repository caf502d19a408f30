import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonObjectSchema, JsonValueSchema, isJsonObject, isJsonValue } from "./json-value.js";

describe("JSON value checks", () => {
  it("accept anything JSON.parse can return, and parse it without copying", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const parsed = JSON.parse(JSON.stringify(value)) as unknown;
        expect(isJsonValue(parsed)).toBe(true);
        expect(JsonValueSchema.parse(parsed)).toBe(parsed);
      }),
    );
  });

  it("reject what JSON cannot hold", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const bad of [undefined, Number.NaN, Infinity, 1n, () => 1, Symbol("s"), new Date(0), new Map(), { a: undefined }, [1, undefined], cyclic]) {
      expect(isJsonValue(bad), String(bad)).toBe(false);
      expect(JsonValueSchema.safeParse(bad).success).toBe(false);
    }
  });

  it("objects: plain only, arrays and primitives refused", () => {
    expect(isJsonObject({ a: [1, { b: null }] })).toBe(true);
    expect(isJsonObject(Object.create(null))).toBe(true);
    for (const bad of [[], null, "x", 1, new Date(0)]) expect(JsonObjectSchema.safeParse(bad).success).toBe(false);
  });
});
