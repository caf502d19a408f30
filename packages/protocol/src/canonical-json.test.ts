import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json.js";
import { YokeError } from "./errors.js";

describe("canonicalJson", () => {
  it("sorts keys and drops whitespace", () => {
    expect(canonicalJson({ b: 1, a: [true, null, "x"], c: { z: 1, y: 2 } })).toBe('{"a":[true,null,"x"],"b":1,"c":{"y":2,"z":1}}');
  });

  it("gives the same bytes whatever the insertion order", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (record) => {
        const reversed = Object.fromEntries(Object.entries(record).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(record));
      }),
    );
  });

  it("round-trips through JSON.parse", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it("rejects values that are not JSON with a typed error", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const bad of [Number.NaN, Infinity, 1n, () => 1, cyclic]) {
      expect(() => canonicalJson(bad)).toThrow(YokeError);
    }
  });
});

describe("canonicalJson strict mode", () => {
  it("accepts exactly what JSON.parse can give back", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const parsed = JSON.parse(JSON.stringify(value)) as unknown;
        expect(canonicalJson(parsed, { strict: true })).toBe(canonicalJson(parsed));
      }),
    );
  });

  it("rejects undefined, Dates and class instances, naming where", () => {
    expect(() => canonicalJson({ a: [1, undefined] }, { strict: true })).toThrow(/\$\.a\[1\]/);
    expect(() => canonicalJson({ a: { b: undefined } }, { strict: true })).toThrow(/\$\.a\.b/);
    expect(() => canonicalJson({ when: new Date(0) }, { strict: true })).toThrow(/Date/);
    expect(() => canonicalJson(new Map(), { strict: true })).toThrow(YokeError);
    expect(canonicalJson({ when: new Date(0) })).toBe('{"when":"1970-01-01T00:00:00.000Z"}');
    expect(canonicalJson(Object.create(null) as object, { strict: true })).toBe("{}");
  });

  it("rejects nesting past the limit", () => {
    let deep: unknown = 1;
    for (let level = 0; level < 300; level++) deep = [deep];
    expect(() => canonicalJson(deep)).toThrow(/nesting/);
  });
});

describe("canonicalJson key order", () => {
  it("orders integer-like keys by code unit, not numerically as engines enumerate them", () => {
    expect(canonicalJson({ 10: "a", 9: "b", x: 1, "01": 2 })).toBe('{"01":2,"10":"a","9":"b","x":1}');
  });

  it("matches a reference writer on any JSON value", () => {
    const reference = (value: unknown): string => {
      if (Array.isArray(value)) return `[${value.map(reference).join(",")}]`;
      if (value !== null && typeof value === "object") {
        const record = value as Record<string, unknown>;
        return `{${Object.keys(record).sort().map((key) => `${JSON.stringify(key)}:${reference(record[key])}`).join(",")}}`;
      }
      return JSON.stringify(value);
    };
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const parsed = JSON.parse(JSON.stringify(value)) as unknown;
        expect(canonicalJson(parsed)).toBe(reference(parsed));
      }),
      { numRuns: 300 },
    );
  });

  it("sorts objects of any width, including past the in-place sort's 32 keys", () => {
    // Keys in random insertion order, values sometimes needing their own reordering.
    const wide = fc.uniqueArray(fc.string({ maxLength: 6 }), { minLength: 0, maxLength: 80 }).chain((keys) =>
      fc.tuple(fc.constant(keys), fc.array(fc.oneof(fc.integer(), fc.dictionary(fc.string({ maxLength: 3 }), fc.boolean())), { minLength: keys.length, maxLength: keys.length })),
    );
    fc.assert(
      fc.property(wide, ([keys, values]) => {
        const record: Record<string, unknown> = {};
        for (const [index, key] of keys.entries()) Object.defineProperty(record, key, { value: values[index], enumerable: true, writable: true, configurable: true });
        const sorted = [...keys].sort();
        const expected = `{${sorted.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`;
        expect(canonicalJson(record)).toBe(expected);
        expect(canonicalJson(record, { strict: true })).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });
});
