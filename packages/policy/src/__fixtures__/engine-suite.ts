// The policy engine suite: every engine behind PolicyEngineV1 (this package's, a Cedar one
// later) runs it with its own factory. It pins the semantics of the rules, not one engine's
// reasons: effect, rule id and policy revision of each decision.
//   describePolicyEngine("my engine", (document) => createMyEngine(document));
import type { ArgumentProvenance, PolicyEngineV1, PolicyTuple } from "@yoke/protocol";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { type PolicyDocument, type PolicyRule, policyRevisionOf, type RuleMatch } from "../index.js";
import { referenceDecide, referenceMatches } from "./reference-decide.js";
import { anyMatch, baseMatch, baseTuple, dimensionCases, documentOf } from "./tuples.js";
import { policyArbitrary, tupleArbitrary } from "./policy-arbitraries.js";

export type PolicyEngineFactory = (document: PolicyDocument) => PolicyEngineV1;

const allow = (id: string, match: RuleMatch): PolicyRule => ({ id, effect: "allow", match });
const approval = (id: string, match: RuleMatch): PolicyRule => ({ id, effect: "require_approval", match });
const deny = (id: string, match: Extract<PolicyRule, { effect: "deny" }>["match"]): PolicyRule => ({ id, effect: "deny", match });
const provenanceEntry = (role: string | undefined, origin: ArgumentProvenance["origin"], value = "x"): ArgumentProvenance => ({
  path: `/${role ?? "other"}`,
  ...(role === undefined ? {} : { role }),
  value,
  origin,
  sources: [],
});

export function describePolicyEngine(name: string, factory: PolicyEngineFactory): void {
  const decide = (rules: readonly PolicyRule[], tuple: PolicyTuple, defaults?: PolicyDocument["defaults"]) =>
    factory(documentOf(rules, defaults)).decide(tuple);

  describe(`policy engine suite: ${name}`, () => {
    test("every decision names the rule, the document's revision (policyRevisionOf) and a reason", () => {
      const document = documentOf([allow("send", baseMatch)]);
      const engine = factory(document);
      expect(engine.specificationVersion).toBe("v1");
      expect(engine.revision).toBe(policyRevisionOf(document));
      for (const tuple of [baseTuple, { ...baseTuple, tenantId: "globex" }, { ...baseTuple, sideEffect: "none" as const }]) {
        const decision = engine.decide(tuple);
        expect(decision.policyRevision).toBe(engine.revision);
        expect(decision.ruleId.length).toBeGreaterThan(0);
        expect(decision.reason.length).toBeGreaterThan(0);
      }
    });

    test("a rule that matches the whole tuple decides with its effect and id", () => {
      expect(decide([allow("send", baseMatch)], baseTuple)).toMatchObject({ effect: "allow", ruleId: "send" });
      expect(decide([approval("ask", baseMatch)], baseTuple)).toMatchObject({ effect: "require_approval", ruleId: "ask" });
      expect(decide([deny("never", { tool: { names: ["send_money"] } })], baseTuple)).toMatchObject({ effect: "deny", ruleId: "never" });
    });

    describe("a rule that matches every dimension but one never allows", () => {
      test.each(dimensionCases)("the rule differs on $dimension", ({ rule }) => {
        for (const make of [allow, approval]) {
          expect(decide([make("almost", rule)], baseTuple)).toMatchObject({ effect: "deny", ruleId: "default-deny" });
        }
      });
      test.each(dimensionCases)("the tuple differs on $dimension", ({ tuple }) => {
        for (const make of [allow, approval]) {
          expect(decide([make("almost", baseMatch)], tuple)).toMatchObject({ effect: "deny", ruleId: "default-deny" });
        }
        // The base tuple does match it: the case changes one dimension only.
        expect(decide([allow("send", baseMatch)], baseTuple)).toMatchObject({ effect: "allow" });
      });
    });

    test.each(dimensionCases)("a deny rule naming only $dimension denies when it matches and stays out of the way when not", ({ dimension, tuple }) => {
      const partial = denyOn(dimension, baseMatch);
      if (partial === undefined) return; // provenance: a deny rule carries no condition
      const rules = [allow("everything", anyMatch), deny("only-this", partial)];
      expect(decide(rules, baseTuple)).toMatchObject({ effect: "deny", ruleId: "only-this" });
      expect(decide(rules, tuple)).toMatchObject({ effect: "allow", ruleId: "everything" });
    });

    describe("precedence: any matching deny > require_approval > allow, whatever the order", () => {
      const rules = [allow("allow-1", baseMatch), approval("ask-1", baseMatch), deny("deny-1", { verb: ["transfer"] })];
      test.each([
        ["deny, approval, allow", [2, 1, 0], "deny-1"],
        ["allow, approval, deny", [0, 1, 2], "deny-1"],
        ["approval, deny, allow", [1, 2, 0], "deny-1"],
      ] as const)("%s", (_order, indexes, expected) => {
        expect(
          decide(
            indexes.map((index) => rules[index]!),
            baseTuple,
          ),
        ).toMatchObject({ effect: "deny", ruleId: expected });
      });
      test("require_approval beats allow in either order", () => {
        expect(decide([rules[0]!, rules[1]!], baseTuple)).toMatchObject({ effect: "require_approval", ruleId: "ask-1" });
        expect(decide([rules[1]!, rules[0]!], baseTuple)).toMatchObject({ effect: "require_approval", ruleId: "ask-1" });
      });
      test("among rules of the winning effect the first in the document names the decision", () => {
        expect(decide([allow("first", baseMatch), allow("second", anyMatch)], baseTuple)).toMatchObject({ ruleId: "first" });
        expect(decide([allow("second", anyMatch), allow("first", baseMatch)], baseTuple)).toMatchObject({ ruleId: "second" });
        expect(decide([deny("d1", { tenant: ["acme"] }), deny("d2", { verb: "*" })], baseTuple)).toMatchObject({ ruleId: "d1" });
      });
      test("a deny that does not match leaves the allow standing", () => {
        expect(decide([rules[0]!, deny("other-tenant", { tenant: ["globex"] })], baseTuple)).toMatchObject({ effect: "allow", ruleId: "allow-1" });
      });
    });

    describe("defaults", () => {
      test.each(["idempotent", "reversible", "irreversible"] as const)("a %s call no rule matches is denied by default-deny", (sideEffect) => {
        expect(decide([], { ...baseTuple, sideEffect })).toMatchObject({ effect: "deny", ruleId: "default-deny" });
        expect(decide([], { ...baseTuple, sideEffect }, { readOnly: "allow" })).toMatchObject({ effect: "deny", ruleId: "default-deny" });
      });
      test("a read-only call of public or internal data no rule matches gets defaults.readOnly (allow unless the document says deny)", () => {
        const readOnly = { ...baseTuple, sideEffect: "none" as const, dataClassification: "internal" as const };
        expect(decide([], { ...readOnly, dataClassification: "public" })).toMatchObject({ effect: "allow", ruleId: "default-read-only" });
        expect(decide([], readOnly)).toMatchObject({ effect: "allow", ruleId: "default-read-only" });
        expect(decide([], readOnly, { readOnly: "allow" })).toMatchObject({ effect: "allow", ruleId: "default-read-only" });
        expect(decide([], readOnly, { readOnly: "deny" })).toMatchObject({ effect: "deny", ruleId: "default-read-only" });
      });
      test.each(["confidential", "restricted"] as const)(
        "a read-only call of %s data needs a rule: with none it is denied, whatever defaults.readOnly says",
        (dataClassification) => {
          const readOnly = { ...baseTuple, sideEffect: "none" as const, dataClassification };
          for (const defaults of [undefined, { readOnly: "allow" as const }, { readOnly: "deny" as const }]) {
            expect(decide([], readOnly, defaults)).toMatchObject({ effect: "deny", ruleId: "default-deny" });
            // A rule for side-effecting calls of the same tool grants nothing to its reads.
            expect(decide([allow("writes", baseMatch)], readOnly, defaults)).toMatchObject({ effect: "deny", ruleId: "default-deny" });
          }
          expect(decide([allow("reads", { ...baseMatch, sideEffect: ["none"], dataClassification: [dataClassification] })], readOnly)).toMatchObject({
            effect: "allow",
            ruleId: "reads",
          });
          // An unknown classification is treated as the most sensitive.
          const unknown = { ...readOnly, dataClassification: "secret" } as unknown as PolicyTuple;
          expect(decide([], unknown)).toMatchObject({ effect: "deny", ruleId: "default-deny" });
        },
      );
      test("rules still decide read-only calls: a deny wins over the default, an approval parks it", () => {
        const readOnly = { ...baseTuple, sideEffect: "none" as const };
        expect(decide([deny("no-reads", { sideEffect: ["none"] })], readOnly)).toMatchObject({ effect: "deny", ruleId: "no-reads" });
        expect(decide([approval("ask", { ...baseMatch, sideEffect: ["none"] })], readOnly)).toMatchObject({ effect: "require_approval" });
        expect(decide([allow("reads", { ...baseMatch, sideEffect: ["none"] })], readOnly, { readOnly: "deny" })).toMatchObject({
          effect: "allow",
          ruleId: "reads",
        });
      });
      test("an unknown side-effect class is treated as side-effecting", () => {
        const odd = { ...baseTuple, sideEffect: "sometimes" } as unknown as PolicyTuple;
        expect(decide([allow("all", anyMatch)], odd).effect).not.toBe("require_approval");
        expect(decide([], odd)).toMatchObject({ effect: "deny", ruleId: "default-deny" });
      });
    });

    describe("provenance conditions", () => {
      const trustedDestinations: RuleMatch = { ...baseMatch, provenance: { roles: ["recipient", "url", "channel"], origins: ["trusted"] } };
      const withProvenance = (...entries: ArgumentProvenance[]): PolicyTuple => ({ ...baseTuple, provenance: entries });
      test.each(["untrusted_only", "unsourced"] as const)("a recipient whose origin is %s is denied when the rule requires trusted", (origin) => {
        expect(decide([allow("send", trustedDestinations)], withProvenance(provenanceEntry("recipient", origin)))).toMatchObject({
          effect: "deny",
          ruleId: "default-deny",
        });
      });
      test("one untrusted destination among trusted ones is enough to fail", () => {
        const tuple = withProvenance(provenanceEntry("recipient", "trusted"), provenanceEntry("url", "untrusted_only"));
        expect(decide([allow("send", trustedDestinations)], tuple)).toMatchObject({ effect: "deny", ruleId: "default-deny" });
      });
      test("trusted destinations, untrusted arguments of other roles or of none, and no entries at all meet it", () => {
        for (const tuple of [
          withProvenance(provenanceEntry("recipient", "trusted"), provenanceEntry("channel", "trusted")),
          withProvenance(provenanceEntry("body", "untrusted_only"), provenanceEntry(undefined, "unsourced")),
          withProvenance(),
        ]) {
          expect(decide([allow("send", trustedDestinations)], tuple)).toMatchObject({ effect: "allow", ruleId: "send" });
        }
      });
      test('"some": a call with at least one destination of those origins matches, one with none (or only trusted ones) does not', () => {
        const fromUntrusted: RuleMatch = {
          ...baseMatch,
          provenance: { roles: ["recipient", "url"], origins: ["untrusted_only", "unsourced"], quantifier: "some" },
        };
        const rules = [allow("send", trustedDestinations), approval("ask", fromUntrusted)];
        expect(decide(rules, withProvenance(provenanceEntry("recipient", "trusted"), provenanceEntry("url", "untrusted_only")))).toMatchObject({
          effect: "require_approval",
          ruleId: "ask",
        });
        expect(decide(rules, withProvenance(provenanceEntry("recipient", "unsourced")))).toMatchObject({ effect: "require_approval", ruleId: "ask" });
        expect(decide(rules, withProvenance(provenanceEntry("recipient", "trusted")))).toMatchObject({ effect: "allow", ruleId: "send" });
        // No destination at all: "every" holds vacuously, "some" does not.
        expect(decide(rules, withProvenance(provenanceEntry("body", "untrusted_only")))).toMatchObject({ effect: "allow", ruleId: "send" });
        expect(decide(rules, withProvenance())).toMatchObject({ effect: "allow", ruleId: "send" });
        const denying = [
          allow("send", trustedDestinations),
          deny("no-untrusted-url", { provenance: { roles: ["url"], origins: ["untrusted_only"], quantifier: "some" } }),
        ];
        expect(decide(denying, withProvenance(provenanceEntry("url", "untrusted_only")))).toMatchObject({ effect: "deny", ruleId: "no-untrusted-url" });
        expect(decide(denying, withProvenance(provenanceEntry("recipient", "trusted")))).toMatchObject({ effect: "allow", ruleId: "send" });
      });
      test("roles are patterns and origins a list", () => {
        const rule = allow("send", { ...baseMatch, provenance: { roles: ["dest:*"], origins: ["trusted", "unsourced"] } });
        expect(decide([rule], withProvenance(provenanceEntry("dest:iban", "unsourced")))).toMatchObject({ effect: "allow" });
        expect(decide([rule], withProvenance(provenanceEntry("dest:iban", "untrusted_only")))).toMatchObject({ effect: "deny" });
        expect(decide([rule], withProvenance(provenanceEntry("dest", "untrusted_only")))).toMatchObject({ effect: "allow" });
      });
    });

    describe("patterns", () => {
      const onResource = (resource: readonly string[]) => [allow("r", { ...baseMatch, resource })];
      test.each([
        [["account:*"], "account:12345", true],
        [["account:*"], "account:", true],
        [["account:*"], "account:a:b/c", true],
        [["account:*"], "accounts:1", false],
        [["account:*"], "xaccount:1", false],
        [["account:*"], "ACCOUNT:1", false],
        [["*:12345"], "account:12345", true],
        [["a*t:*5"], "account:12345", true],
        [["a*t:*5"], "account:12346", false],
        [["account:1.3*"], "account:12345", false],
        [["account:(1)"], "account:(1)", true],
        [["account:\\*"], "account:*", true],
        [["account:\\*"], "account:1", false],
        [["account:12345"], "account:123456", false],
        [["**"], "anything", true],
        [["file:/a/*/c"], "file:/a/b/x/c", true],
        [["x", "account:1*"], "account:12345", true],
        [["ünïcödé:*"], "ünïcödé:😀", true],
      ] as const)("resource %j against %s: %s", (resource, value, expected) => {
        expect(decide(onResource(resource), { ...baseTuple, resource: value }).effect).toBe(expected ? "allow" : "deny");
      });
      test('"*" matches an absent optional value, ["*"] only a present one, [null] only an absent one', () => {
        const { destination: _destination, ...noDestination } = baseTuple;
        expect(decide([allow("r", { ...baseMatch, destination: "*" })], noDestination).effect).toBe("allow");
        expect(decide([allow("r", { ...baseMatch, destination: ["*"] })], noDestination).effect).toBe("deny");
        expect(decide([allow("r", { ...baseMatch, destination: ["*"] })], baseTuple).effect).toBe("allow");
        expect(decide([allow("r", { ...baseMatch, destination: [null] })], noDestination).effect).toBe("allow");
        expect(decide([allow("r", { ...baseMatch, destination: [null] })], baseTuple).effect).toBe("deny");
      });
      test("scopes match when the task holds any scope a pattern matches", () => {
        const rule = [allow("r", { ...baseMatch, scopes: ["payments:*"] })];
        expect(decide(rule, { ...baseTuple, task: { runId: "r", scopes: ["mail:send", "payments:read"] } }).effect).toBe("allow");
        expect(decide(rule, { ...baseTuple, task: { runId: "r", scopes: [] } }).effect).toBe("deny");
        expect(decide([allow("r", { ...baseMatch, scopes: "*" })], { ...baseTuple, task: { runId: "r", scopes: [] } }).effect).toBe("allow");
      });
    });

    test("decide is deterministic and does not change the tuple", () => {
      const engine = factory(documentOf([allow("send", baseMatch), deny("globex", { tenant: ["globex"] })]));
      const tuple = structuredClone(baseTuple);
      const frozen = deepFreeze(structuredClone(baseTuple));
      const first = engine.decide(tuple);
      expect(engine.decide(frozen)).toEqual(first);
      expect(engine.decide(tuple)).toEqual(first);
      expect(tuple).toEqual(baseTuple);
    });

    test("property: the decision is the specification's; an allow has an allow rule matching every dimension and no matching deny or approval", () => {
      fc.assert(
        fc.property(policyArbitrary, fc.array(tupleArbitrary, { minLength: 1, maxLength: 8 }), (document, tuples) => {
          const engine = factory(document);
          for (const tuple of tuples) {
            const decision = engine.decide(tuple);
            expect({ effect: decision.effect, ruleId: decision.ruleId }).toEqual(referenceDecide(document, tuple));
            if (decision.effect === "allow") {
              const matching = document.rules.filter((rule) => referenceMatches(rule, tuple));
              expect(matching.some((rule) => rule.effect === "deny" || rule.effect === "require_approval")).toBe(false);
              if (decision.ruleId === "default-read-only") expect(tuple.sideEffect).toBe("none");
              else expect(matching.find((rule) => rule.id === decision.ruleId)?.effect).toBe("allow");
            }
          }
        }),
        { numRuns: 300 },
      );
    });
  });
}

/** A deny match naming only `dimension`, with the value `match` gives it. */
function denyOn(dimension: string, match: RuleMatch): Extract<PolicyRule, { effect: "deny" }>["match"] | undefined {
  const [group, leaf] = dimension.split(".") as [keyof RuleMatch, string | undefined];
  if (group === "provenance") return undefined;
  if (leaf === undefined) return { [group]: match[group] };
  return { [group]: { [leaf]: (match[group] as unknown as Record<string, unknown>)[leaf] } };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}
