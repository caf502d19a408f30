// An `all` provenance condition ("every constrained destination came from trusted content")
// holds vacuously over an empty list, so it must never hold over a list it cannot read: a
// tuple without provenance, or with an entry that is not a { role, origin } pair, matches no
// rule with such a condition (fail closed), even with tuple validation off.
import { describe, expect, test } from "vitest";
import { baseMatch, baseTuple, documentOf } from "./__fixtures__/tuples.js";
import { createPolicyEngine, type PolicyRule } from "./index.js";

const rule: PolicyRule = { id: "trusted-recipient", effect: "allow", match: { ...baseMatch, provenance: { roles: ["recipient"], origins: ["trusted"] } } };
const engine = createPolicyEngine(documentOf([rule]));
const withProvenance = (provenance: unknown) => ({ ...baseTuple, provenance }) as unknown as typeof baseTuple;

describe("an all-quantified provenance condition fails closed", () => {
  test("the well-formed tuple is allowed (the rule is otherwise satisfiable)", () => {
    expect(engine.decide(baseTuple)).toMatchObject({ effect: "allow", ruleId: "trusted-recipient" });
  });

  test.each([
    ["no provenance at all", undefined],
    ["null", null],
    ["a string", "trusted"],
    ["an object instead of a list", { role: "recipient", origin: "trusted" }],
  ])("a tuple whose provenance is %s matches no such rule", (_label, provenance) => {
    expect(engine.decide(withProvenance(provenance))).toMatchObject({ effect: "deny", ruleId: "default-deny" });
  });

  test.each([
    ["null", null],
    ["a string", "recipient"],
    ["an entry whose role is not a string", { path: "/recipient", role: 7, value: "GB33BUKB20201555555555", origin: "untrusted_only" }],
  ])("a provenance entry that is %s makes the condition unprovable", (_label, entry) => {
    expect(engine.decide(withProvenance([...baseTuple.provenance, entry]))).toMatchObject({ effect: "deny", ruleId: "default-deny" });
  });
});
