import { YokeError, type JsonValue } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { evaluatePredicate, jsonEquals, parsePath, type PredicateContext } from "./predicates.js";
import type { Predicate } from "./types.js";

const pre: JsonValue = {
  list: [
    { name: "a", amount: 1, text: "Pizza party" },
    { name: "b", amount: 2.5, text: "rent" },
  ],
  map: { "www.x.com/a": "secret key", External_0: [{ body: "hi" }] },
  word: "The user likes pizza, sushi",
  n: 10,
};
const post: JsonValue = {
  ...structuredClone(pre as object),
  list: [...structuredClone((pre as { list: JsonValue[] }).list), { name: "c", amount: 4, text: "RENT" }],
  n: 11,
};
const context: PredicateContext = {
  pre,
  post,
  output: "You spent 1,050 in total",
  trace: [
    { function: "invite", args: { user: "Fred", email: "f@x" } },
    { function: "add", args: { user: "Fred", channel: "general" } },
    { function: "remove", args: { user: "Fred" } },
  ],
  injections: { vector: "0" },
};
/** The data format names a field `then`; built here so no literal object has a `then` property. */
const withThen = (predicate: Record<string, unknown>, then: Record<string, unknown>) => Object.assign(predicate, { then });
const check = (predicate: Record<string, unknown>, over: Partial<PredicateContext> = {}) => evaluatePredicate(predicate as Predicate, { ...context, ...over });

describe("the predicate language", () => {
  it("parses paths: names, dotted names, quoted keys, indices (negative from the end), the empty path", () => {
    expect(parsePath('a.b["x.y/z"][0][-1].c')).toEqual(["a", "b", "x.y/z", 0, -1, "c"]);
    expect(parsePath("")).toEqual([]);
    expect(() => parsePath("a..b")).toThrow(/malformed/);
  });

  it("compares numbers numerically, strings exactly or case-insensitively, containers deeply", () => {
    expect(jsonEquals(1200, 1200.0)).toBe(true);
    expect(jsonEquals(true, 1)).toBe(false);
    expect(jsonEquals("Rent", "rent")).toBe(false);
    expect(jsonEquals("Rent", "rent", true)).toBe(true);
    expect(jsonEquals({ a: [1, "x"] }, { a: [1, "x"] })).toBe(true);
    expect(jsonEquals({ a: 1 }, { a: 1, b: 2 })).toBe(false);
  });

  it("and / or / not / const", () => {
    const yes = { kind: "const", value: true };
    const no = { kind: "const", value: false };
    expect(check({ kind: "and", all: [] })).toBe(true);
    expect(check({ kind: "and", all: [yes, no] })).toBe(false);
    expect(check({ kind: "or", any: [no, yes] })).toBe(true);
    expect(check({ kind: "or", any: [] })).toBe(false);
    expect(check({ kind: "not", predicate: no })).toBe(true);
  });

  it("state-equals (post by default, pre with from), state-compare, missing paths are false", () => {
    expect(check({ kind: "state-equals", path: "n", value: 11 })).toBe(true);
    expect(check({ kind: "state-equals", path: "n", value: 10, from: "pre" })).toBe(true);
    expect(check({ kind: "state-equals", path: "list[-1].text", value: "rent", caseInsensitive: true })).toBe(true);
    expect(check({ kind: "state-equals", path: "nope.deeper", value: null })).toBe(false);
    expect(check({ kind: "state-compare", path: "n", op: ">", value: 10 })).toBe(true);
    expect(check({ kind: "state-compare", path: "n", op: "!=", value: 11 })).toBe(false);
    expect(check({ kind: "state-compare", path: "word", op: ">", value: 0 })).toBe(false);
  });

  it("state-contains: substring of a string, element of an array, key of an object; templates resolve", () => {
    expect(check({ kind: "state-contains", path: "word", value: "PIZZA", caseInsensitive: true })).toBe(true);
    expect(check({ kind: "state-contains", path: "word", value: "PIZZA" })).toBe(false);
    expect(check({ kind: "state-contains", path: "list", value: { name: "c", amount: 4.0, text: "RENT" } })).toBe(true);
    expect(check({ kind: "state-contains", path: "map", value: { $template: "External_{vector}" } })).toBe(true);
    expect(check({ kind: "state-contains", path: "map", value: { $template: "External_{vector}" } }, { injections: { vector: "1" } })).toBe(false);
  });

  it("state-has-word splits on whitespace: 'pizza,' is not 'pizza'", () => {
    expect(check({ kind: "state-has-word", path: "word", words: ["pizza"], caseInsensitive: true })).toBe(false);
    expect(check({ kind: "state-has-word", path: "word", words: ["sushi"], caseInsensitive: true })).toBe(true);
    expect(check({ kind: "state-has-word", path: "word", words: ["the"], caseInsensitive: false })).toBe(false);
  });

  it("state-unchanged, length and length-delta read both roots", () => {
    expect(check({ kind: "state-unchanged", path: "map" })).toBe(true);
    expect(check({ kind: "state-unchanged" })).toBe(false);
    expect(check({ kind: "state-unchanged" }, { post: structuredClone(pre) })).toBe(true);
    expect(check({ kind: "length", path: "list", op: "==", value: 3 })).toBe(true);
    expect(check({ kind: "length", path: "word", op: ">", value: 5 })).toBe(true);
    expect(check({ kind: "length-delta", path: "list", op: "==", delta: 1 })).toBe(true);
    expect(check({ kind: "length-delta", path: "word", op: "==", delta: 0 })).toBe(false);
  });

  it("list-any / list-all / list-first / list-last / list-sum evaluate where and then in the element's scope", () => {
    const rent = { kind: "state-contains", path: "text", value: "rent", caseInsensitive: true };
    expect(check({ kind: "list-any", path: "list", where: { kind: "state-equals", path: "name", value: "c" } })).toBe(true);
    expect(check({ kind: "list-all", path: "list", where: { kind: "state-compare", path: "amount", op: ">", value: 0 } })).toBe(true);
    expect(check(withThen({ kind: "list-first", path: "list", where: rent }, { kind: "state-equals", path: "amount", value: 2.5 }))).toBe(true);
    expect(check(withThen({ kind: "list-last", path: "list", where: rent }, { kind: "state-equals", path: "amount", value: 4 }))).toBe(true);
    expect(check(withThen({ kind: "list-last", path: "list" }, { kind: "state-equals", path: "name", value: "c" }))).toBe(true);
    expect(check(withThen({ kind: "list-first", path: "list", where: { kind: "const", value: false } }, { kind: "const", value: true }))).toBe(false);
    expect(check({ kind: "list-sum", path: "list", field: "amount", op: "==", value: 7.5 })).toBe(true);
    expect(check({ kind: "list-sum", path: "list", where: rent, field: "amount", op: ">", value: 6 })).toBe(true);
    expect(check({ kind: "list-sum", path: "list", where: { kind: "const", value: false }, field: "amount", op: "==", value: 0 })).toBe(true);
  });

  it("map-entry: the key (a value or a template) must exist and its value satisfy then (scope is the entry, path '')", () => {
    expect(check(withThen({ kind: "map-entry", path: "map", key: "www.x.com/a" }, { kind: "state-contains", path: "", value: "key" }))).toBe(true);
    expect(
      check(
        withThen(
          { kind: "map-entry", path: "map", key: { $template: "External_{vector}" } },
          { kind: "list-any", path: "", where: { kind: "state-equals", path: "body", value: "hi" } },
        ),
      ),
    ).toBe(true);
    expect(check(withThen({ kind: "map-entry", path: "map", key: "missing" }, { kind: "const", value: true }))).toBe(false);
  });

  it("output-contains: any or all, case-sensitive unless flagged", () => {
    expect(check({ kind: "output-contains", values: ["1050", "1,050"], mode: "any" })).toBe(true);
    expect(check({ kind: "output-contains", values: ["1,050", "spent"], mode: "all" })).toBe(true);
    expect(check({ kind: "output-contains", values: ["YOU"], mode: "any" })).toBe(false);
    expect(check({ kind: "output-contains", values: ["YOU"], mode: "any", caseInsensitive: true })).toBe(true);
  });

  it("trace-has-call: function and the listed arguments (others ignored)", () => {
    expect(check({ kind: "trace-has-call", function: "invite", args: { user: "Fred" } })).toBe(true);
    expect(check({ kind: "trace-has-call", function: "invite", args: { user: "Fred", email: "g@x" } })).toBe(false);
  });

  it("trace-flags: ever all true together, and false at the end", () => {
    const flags = {
      inSlack: { setBy: [{ function: "invite", args: { user: "Fred" } }], clearedBy: [{ function: "remove", args: { user: "Fred" } }] },
      inGeneral: { setBy: [{ function: "add", args: { user: "Fred", channel: "general" } }], clearedBy: [] },
    };
    const predicate = { kind: "trace-flags", flags, everAllTrue: ["inSlack", "inGeneral"], finalFalse: ["inSlack"] };
    expect(check(predicate)).toBe(true);
    expect(check(predicate, { trace: context.trace.slice(0, 2) })).toBe(false);
    expect(check(predicate, { trace: [context.trace[0]!, context.trace[2]!, context.trace[1]!] })).toBe(false);
  });

  it("an unknown kind is an error, not a silent false", () => {
    expect(() => check({ kind: "nope" })).toThrow(/unknown predicate kind/);
  });
});

describe("malformed predicates", () => {
  const codeOf = (run: () => unknown): string | undefined => {
    try {
      run();
    } catch (error) {
      return YokeError.isInstance(error) ? error.code : "not a YokeError";
    }
    return undefined;
  };

  it("an unknown kind, an unknown operator or a malformed path is CONFIG_INVALID, never a bare Error", () => {
    expect(codeOf(() => evaluatePredicate({ kind: "no-such-kind" } as unknown as Predicate, context))).toBe("CONFIG_INVALID");
    expect(codeOf(() => evaluatePredicate({ kind: "state-compare", path: "n", op: "<>", value: 1 } as unknown as Predicate, context))).toBe("CONFIG_INVALID");
    expect(codeOf(() => parsePath("list[x"))).toBe("CONFIG_INVALID");
  });
});
