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
        return `{${Object.keys(record)
          .sort()
          .map((key) => `${JSON.stringify(key)}:${reference(record[key])}`)
          .join(",")}}`;
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
    const wide = fc
      .uniqueArray(fc.string({ maxLength: 6 }), { minLength: 0, maxLength: 80 })
      .chain((keys) =>
        fc.tuple(
          fc.constant(keys),
          fc.array(fc.oneof(fc.integer(), fc.dictionary(fc.string({ maxLength: 3 }), fc.boolean())), { minLength: keys.length, maxLength: keys.length }),
        ),
      );
    fc.assert(
      fc.property(wide, ([keys, values]) => {
        const record: Record<string, unknown> = {};
        for (const [index, key] of keys.entries())
          Object.defineProperty(record, key, { value: values[index], enumerable: true, writable: true, configurable: true });
        const sorted = [...keys].sort();
        const expected = `{${sorted.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`;
        expect(canonicalJson(record)).toBe(expected);
        expect(canonicalJson(record, { strict: true })).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });
});

/**
 * The one canonical serializer: the context compiler's request frames and the runtime's
 * journaled values are written with it (they had their own copies once, pinned equal to it by
 * this property, which now pins it against an independent reference writer).
 */
describe("canonicalJson on any value, JSON or not", () => {
  const NOT_JSON = "threw EVENT_INVALID";
  /** JSON.stringify's semantics with keys sorted by code unit; NOT_JSON where canonicalJson must throw. */
  const reference = (value: unknown, depth = 0): string => {
    if (depth > 200) throw new Error(NOT_JSON);
    switch (typeof value) {
      case "string":
      case "boolean":
        return JSON.stringify(value);
      case "number":
        if (!Number.isFinite(value)) throw new Error(NOT_JSON);
        return JSON.stringify(value);
      case "undefined":
        return "null";
      case "object":
        break;
      default:
        throw new Error(NOT_JSON);
    }
    if (value === null) return "null";
    if (Array.isArray(value)) return `[${value.map((item) => reference(item, depth + 1)).join(",")}]`;
    const prototype = Object.getPrototypeOf(value);
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (prototype !== Object.prototype && prototype !== null && typeof toJSON === "function") return reference(toJSON.call(value), depth + 1);
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${reference(record[key], depth + 1)}`);
    return `{${members.join(",")}}`;
  };
  const outcome = (write: (value: unknown) => string, value: unknown): string => {
    try {
      return write(value);
    } catch (error) {
      if (error instanceof YokeError) return `threw ${error.code}`;
      return (error as Error).message;
    }
  };

  const key = fc.oneof(
    fc.constantFrom("role", "content", "type", "text", "__proto__", "toJSON", "0", "1", "10", "01", "a", "B", "é", "", "\uD83D"),
    fc.string({ unit: "binary", maxLength: 6 }),
  );
  const leaf = fc.oneof(
    fc.string({ unit: "binary", maxLength: 12 }),
    fc.double(),
    fc.integer(),
    fc.constantFrom(-0, 1e21, 5e-324, true, false, null, undefined, Number.NaN, Infinity),
    fc.constantFrom(new Date(0), new Map([[1, 2]]), () => 1, 10n, Symbol.for("x")),
  );
  const value = fc.letrec((tie) => ({
    any: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, tie("array"), tie("object")),
    array: fc.array(tie("any"), { maxLength: 5 }),
    object: fc.oneof(fc.dictionary(key, tie("any"), { maxKeys: 6 }), fc.dictionary(key, tie("any"), { maxKeys: 6, noNullPrototype: false })),
  })).any;

  it("writes what the reference writes, or throws EVENT_INVALID where it refuses", () => {
    fc.assert(
      fc.property(value, (input) => {
        expect(outcome(canonicalJson, input)).toBe(outcome(reference, input));
      }),
      { numRuns: 5_000 },
    );
  });

  it("pins the edges: -0, undefined, __proto__, integer-like keys, lone surrogates (code-unit order, escaped), toJSON, non-plain objects", () => {
    expect(canonicalJson([-0, { z: -0 }])).toBe('[0,{"z":0}]');
    expect(canonicalJson({ b: undefined, a: [undefined] })).toBe('{"a":[null]}');
    expect(canonicalJson(undefined)).toBe("null");
    expect(canonicalJson(JSON.parse('{"z":1,"__proto__":{"b":2,"a":1}}'))).toBe('{"__proto__":{"a":1,"b":2},"z":1}');
    expect(canonicalJson({ b: 1, 2: 1, 10: 1, "01": 1 })).toBe('{"01":1,"10":1,"2":1,"b":1}');
    expect(canonicalJson({ "\uD83D": "\uDE00", é: "é" })).toBe('{"é":"é","\\ud83d":"\\ude00"}');
    expect(canonicalJson({ when: new Date(0), map: new Map([[1, 2]]) })).toBe('{"map":{},"when":"1970-01-01T00:00:00.000Z"}');
    expect(outcome(canonicalJson, { toJSON: () => 1 })).toBe(NOT_JSON);
  });
});
