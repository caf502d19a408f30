import type { JsonValue } from "@yoke/protocol";
import { YokeError } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { evaluatePredicate } from "./predicates.js";
import type { Predicate } from "./types.js";

// A list compared element by element with other state: "every address asked for is one the account has written to".
const state: JsonValue = {
  asked: ["a@x.example", "B@x.example"],
  outbox: [
    { from: "me", to: ["a@x.example"] },
    { from: "them", to: ["c@x.example"] },
    { from: "me", to: ["b@x.example"] },
  ],
};

const written = (owner: string): Predicate => ({
  kind: "list-any",
  root: true,
  path: "outbox",
  where: {
    kind: "and",
    all: [
      { kind: "state-equals", path: "from", value: owner },
      { kind: "state-contains", path: "to", value: { $var: "address" }, caseInsensitive: true },
    ],
  },
});

const check = (predicate: Predicate, post: JsonValue = state) => evaluatePredicate(predicate, { pre: post, post, output: "", trace: [], injections: {} });

describe("binding a list element (as, $var) and reaching the root from a where (root)", () => {
  it("holds when every element matches other state, and fails for one that does not", () => {
    expect(check({ kind: "list-all", path: "asked", as: "address", where: written("me") })).toBe(true);
    expect(check({ kind: "list-all", path: "asked", as: "address", where: written("them") })).toBe(false);
    const withOutsider = { ...(state as object), asked: ["a@x.example", "c@x.example"] } as JsonValue;
    expect(check({ kind: "list-all", path: "asked", as: "address", where: written("me") }, withOutsider)).toBe(false);
    expect(check({ kind: "list-any", path: "asked", as: "address", where: written("them") }, withOutsider)).toBe(true);
  });

  it("without root, a path inside a where is the element's (the data set's scope rule)", () => {
    const unrooted = { ...written("me"), root: undefined } as unknown as Predicate;
    expect(check({ kind: "list-all", path: "asked", as: "address", where: unrooted })).toBe(false);
  });

  it("a $var path reads inside the bound element, and an unresolved one is false", () => {
    const firstRecipientIsMine: Predicate = {
      kind: "list-any",
      path: "outbox",
      as: "mail",
      where: { kind: "state-equals", path: "from", value: "me", root: false },
    };
    expect(check(firstRecipientIsMine)).toBe(true);
    const byField: Predicate = {
      kind: "list-any",
      path: "outbox",
      as: "mail",
      where: { kind: "state-contains", root: true, path: "asked", value: { $var: "mail.to[0]" } },
    };
    expect(check(byField)).toBe(true);
    const missing: Predicate = { kind: "list-any", path: "outbox", as: "mail", where: { kind: "state-equals", path: "from", value: { $var: "mail.nowhere" } } };
    expect(check(missing)).toBe(false);
  });

  it("a $var no enclosing predicate binds is CONFIG_INVALID naming it", () => {
    const unbound: Predicate = { kind: "list-any", path: "outbox", where: { kind: "state-equals", path: "from", value: { $var: "mail" } } };
    expect(() => check(unbound)).toThrow(YokeError);
    expect(() => check(unbound)).toThrow(/names mail, which no enclosing list predicate binds/);
  });
});
