import { YokeError } from "@yoke/protocol";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { anyMatch, baseMatch, documentOf } from "./__fixtures__/tuples.js";
import { DIMENSIONS, type GrantingRule, loadPolicy, type PolicyDocument, type PolicyRule, policyRevisionOf, safeLoadPolicy } from "./index.js";

const allow = (id: string, match = baseMatch): PolicyRule => ({ id, effect: "allow", match });

function invalid(json: unknown): YokeError {
  try {
    loadPolicy(json);
  } catch (error) {
    if (YokeError.hasCode(error, "POLICY_INVALID")) return error;
    throw error;
  }
  throw new Error("loadPolicy accepted the document");
}

/** `baseMatch` without the named dimensions (a dotted name drops the leaf). */
function without(...dimensions: string[]): Record<string, unknown> {
  const match = structuredClone(baseMatch) as unknown as Record<string, Record<string, unknown>>;
  for (const dimension of dimensions) {
    const [group, leaf] = dimension.split(".") as [string, string | undefined];
    if (leaf === undefined) delete match[group];
    else delete match[group]![leaf];
  }
  return match;
}

describe("loadPolicy", () => {
  test("accepts a JSON document (value or text), fills in defaults.readOnly and freezes it", () => {
    const json = { version: 1, id: "acme", rules: [allow("send")] };
    const document = loadPolicy(json);
    expect(document.defaults).toEqual({ readOnly: "allow" });
    expect(loadPolicy(JSON.stringify(json))).toEqual(document);
    expect(Object.isFrozen(document.rules[0]!.match.tool)).toBe(true);
    expect(Object.isFrozen(json.rules)).toBe(false);
  });

  test.each(DIMENSIONS)("an allow or require_approval rule without %s is POLICY_INVALID naming it", (dimension) => {
    for (const effect of ["allow", "require_approval"]) {
      const error = invalid({ version: 1, id: "p", rules: [{ id: "r", effect, match: without(dimension) }] });
      expect(error.message).toContain(`missing: ${dimension}`);
      expect(error.details.missing).toEqual([{ ruleId: "r", dimensions: [dimension] }]);
    }
  });

  test("every missing dimension of every rule is listed", () => {
    const error = invalid({
      version: 1,
      id: "p",
      rules: [
        { id: "a", effect: "allow", match: without("tenant", "tool.owners", "provenance") },
        { id: "b", effect: "require_approval", match: {} },
      ],
    });
    expect(error.details.missing).toEqual([
      { ruleId: "a", dimensions: ["tenant", "tool.owners", "provenance"] },
      { ruleId: "b", dimensions: [...DIMENSIONS] },
    ]);
    expect(error.message).toContain("rules[0].match: an allow rule must name every dimension");
    expect(error.message).toContain("missing: tenant, tool.owners, provenance");
  });

  test("a deny rule may name any subset of dimensions, none included", () => {
    const rules = [
      { id: "d1", effect: "deny", match: {} },
      { id: "d2", effect: "deny", match: { tool: { names: ["send_money"] }, destination: ["iban:FR*"] } },
    ];
    expect(loadPolicy({ version: 1, id: "p", rules }).rules).toHaveLength(2);
  });

  test('a deny rule with an "every" provenance condition is POLICY_INVALID; one with "some" loads and denies only calls it names', () => {
    const error = invalid({
      version: 1,
      id: "p",
      rules: [{ id: "d", effect: "deny", match: { provenance: { roles: ["recipient"], origins: ["untrusted_only"] } } }],
    });
    expect(error.message).toContain('rules[0].match.provenance: a deny rule cannot carry an "every" provenance condition');
    expect(loadPolicy({ version: 1, id: "p", rules: [{ id: "d", effect: "deny", match: { provenance: "*" } }] }).rules).toHaveLength(1);
    const some = loadPolicy({
      version: 1,
      id: "p",
      rules: [{ id: "d", effect: "deny", match: { provenance: { roles: ["recipient"], origins: ["untrusted_only"], quantifier: "some" } } }],
    });
    expect(some.rules).toHaveLength(1);
  });

  test("duplicate and reserved rule ids are POLICY_INVALID", () => {
    expect(invalid(documentOf([allow("same"), allow("other"), allow("same")])).message).toContain('rules[2].id: duplicate rule id "same"');
    for (const id of ["default-deny", "default-read-only", "invalid-tuple"]) {
      expect(invalid(documentOf([allow(id)])).message).toContain(`rule id "${id}" is reserved`);
    }
  });

  test.each([
    ["an unknown version", { version: 2, id: "p", rules: [] }, "version"],
    ["a misspelt dimension", { version: 1, id: "p", rules: [{ id: "d", effect: "deny", match: { resources: ["x"] } }] }, "resources"],
    ["a bare string for a list", { version: 1, id: "p", rules: [{ id: "d", effect: "deny", match: { tenant: "acme" } }] }, 'expected "*" or a non-empty list'],
    ["an empty list", { version: 1, id: "p", rules: [{ id: "d", effect: "deny", match: { verb: [] } }] }, ">=1 items"],
    ["an unknown side-effect class", { version: 1, id: "p", rules: [{ id: "d", effect: "deny", match: { sideEffect: ["irreversable"] } }] }, "sideEffect"],
    ["an unknown effect", { version: 1, id: "p", rules: [{ id: "d", effect: "permit", match: {} }] }, "effect"],
    ["a trailing backslash", { version: 1, id: "p", rules: [{ id: "d", effect: "deny", match: { resource: ["a\\"] } }] }, "lone"],
    ["null for a required dimension", { version: 1, id: "p", rules: [{ id: "d", effect: "deny", match: { verb: [null] } }] }, "verb"],
    ["not JSON", "{ version: 1", "not valid JSON"],
    ["not an object", 42, "document"],
  ])("rejects %s", (_name, json, fragment) => {
    expect(invalid(json).message).toContain(fragment);
    expect(safeLoadPolicy(json)).toMatchObject({ success: false, error: { code: "POLICY_INVALID" } });
  });
});

describe("policyRevisionOf", () => {
  const document: PolicyDocument = {
    version: 1,
    id: "acme",
    defaults: { readOnly: "deny" },
    rules: [allow("send"), { id: "no-fr", effect: "deny", reason: "no", match: { destination: ["iban:FR*"] } }],
  };

  test("is SHA-256 hex, equal for the JSON round trip and for a missing default written out", () => {
    const revision = policyRevisionOf(document);
    expect(revision).toMatch(/^[0-9a-f]{64}$/);
    expect(policyRevisionOf(JSON.parse(JSON.stringify(document)))).toBe(revision);
    expect(policyRevisionOf({ version: 1, id: "x", rules: [] })).toBe(policyRevisionOf({ version: 1, id: "x", defaults: { readOnly: "allow" }, rules: [] }));
  });

  test("property: stable under any reordering of object keys", () => {
    const revision = policyRevisionOf(document);
    fc.assert(
      fc.property(fc.infiniteStream(fc.nat()), (randomness) => {
        const iterator = randomness[Symbol.iterator]();
        expect(policyRevisionOf(shuffleKeys(document, () => iterator.next().value as number) as PolicyDocument)).toBe(revision);
      }),
    );
  });

  test.each<[string, (document: PolicyDocument) => PolicyDocument]>([
    ["the document id", (d) => ({ ...d, id: "acme-2" })],
    ["defaults.readOnly", (d) => ({ ...d, defaults: { readOnly: "allow" } })],
    ["a rule id", (d) => ({ ...d, rules: [{ ...d.rules[0]!, id: "send-2" }, d.rules[1]!] })],
    ["a rule effect", (d) => ({ ...d, rules: [{ ...(d.rules[0] as GrantingRule), effect: "require_approval" }, d.rules[1]!] })],
    ["a rule reason", (d) => ({ ...d, rules: [d.rules[0]!, { ...d.rules[1]!, reason: "never" }] })],
    ["a pattern", (d) => ({ ...d, rules: [allow("send", { ...baseMatch, resource: ["account:1*"] }), d.rules[1]!] })],
    ["a list's order", (d) => ({ ...d, rules: [allow("send", { ...baseMatch, dataClassification: ["confidential", "internal"] }), d.rules[1]!] })],
    ["a wildcard for a list", (d) => ({ ...d, rules: [allow("send", { ...baseMatch, verb: "*" }), d.rules[1]!] })],
    ["the rules' order", (d) => ({ ...d, rules: [d.rules[1]!, d.rules[0]!] })],
    ["one more rule", (d) => ({ ...d, rules: [...d.rules, allow("any", anyMatch)] })],
  ])("changes with %s", (_name, change) => {
    expect(policyRevisionOf(change(document))).not.toBe(policyRevisionOf(document));
  });

  test("property: any change to one rule's match changes the revision", () => {
    const revision = policyRevisionOf(document);
    fc.assert(
      fc.property(fc.constantFrom(...DIMENSIONS), fc.boolean(), (dimension, wildcard) => {
        const value = wildcard ? "*" : (OTHER_VALUES[dimension] ?? ["other"]);
        const [group, leaf] = dimension.split(".") as [string, string | undefined];
        const match = structuredClone(baseMatch) as unknown as Record<string, unknown>;
        const before = leaf === undefined ? match[group] : (match[group] as Record<string, unknown>)[leaf];
        const replacement = value;
        fc.pre(JSON.stringify(before) !== JSON.stringify(replacement));
        if (leaf === undefined) match[group] = replacement;
        else (match[group] as Record<string, unknown>)[leaf] = replacement;
        const changed = { ...document, rules: [allow("send", match as unknown as typeof baseMatch), document.rules[1]!] };
        expect(policyRevisionOf(changed)).not.toBe(revision);
      }),
    );
  });

  test("an invalid document has no revision: POLICY_INVALID", () => {
    expect(() => policyRevisionOf({ version: 1, id: "p", rules: [allow("a"), allow("a")] })).toThrow(expect.objectContaining({ code: "POLICY_INVALID" }));
  });
});

/** A valid value other than `baseMatch`'s for the dimensions that take no free strings. */
const OTHER_VALUES: Partial<Record<string, unknown>> = {
  "principal.authenticated": [false],
  dataClassification: ["public"],
  sideEffect: ["reversible"],
  provenance: { roles: ["other"], origins: ["trusted"] },
};

/** A deep copy with every object's keys in a random order (arrays keep theirs). */
function shuffleKeys(value: unknown, next: () => number): unknown {
  if (Array.isArray(value)) return value.map((item) => shuffleKeys(item, next));
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value);
  for (let index = entries.length - 1; index > 0; index--) {
    const other = next() % (index + 1);
    [entries[index], entries[other]] = [entries[other]!, entries[index]!];
  }
  return Object.fromEntries(entries.map(([key, member]) => [key, shuffleKeys(member, next)]));
}
