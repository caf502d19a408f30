import type { PolicyTuple } from "@yoke/protocol";
import { describe, expect, test } from "vitest";
import { baseTuple } from "./__fixtures__/tuples.js";
import { ANY_MATCH, DIMENSIONS, allowRule, createPolicyEngine, denyRule, loadPolicy, matching, policyRevisionOf, sideEffectsNeedAPerson } from "./index.js";

const read = (dataClassification: PolicyTuple["dataClassification"]): PolicyTuple => ({ ...baseTuple, sideEffect: "none", dataClassification });

describe("matching", () => {
  test("names every dimension a granting rule must, as the wildcard unless narrowed", () => {
    const match = matching({ tool: { names: ["send_money"] }, sideEffect: ["irreversible"] });
    // loadPolicy refuses a granting rule that leaves a dimension out: this one leaves none out.
    const policy = loadPolicy({ version: 1, id: "m", rules: [allowRule("pay", match)] });
    expect(policy.rules[0]!.match).toEqual({ ...ANY_MATCH, tool: { names: ["send_money"], revisions: "*", owners: "*" }, sideEffect: ["irreversible"] });
    for (const dimension of DIMENSIONS) expect(JSON.stringify(match)).toContain(dimension.split(".")[0]!);
    expect(createPolicyEngine(policy).decide({ ...baseTuple, influence: { integrity: "trusted", loweredBy: [] } })).toMatchObject({
      effect: "allow",
      ruleId: "pay",
    });
    expect(createPolicyEngine(policy).decide({ ...baseTuple, tool: { ...baseTuple.tool, name: "close_account" } })).toMatchObject({ effect: "deny" });
  });

  test("narrows principal and tool member by member and never changes ANY_MATCH", () => {
    const match = matching({ principal: { authenticated: [true] }, tool: { owners: [null] } });
    expect(match.principal).toEqual({ ids: "*", authenticated: [true] });
    expect(match.tool).toEqual({ names: "*", revisions: "*", owners: [null] });
    expect(ANY_MATCH.principal).toEqual({ ids: "*", authenticated: "*" });
    expect(Object.isFrozen(ANY_MATCH) && Object.isFrozen(ANY_MATCH.tool)).toBe(true);
  });
});

describe("sideEffectsNeedAPerson", () => {
  const engine = createPolicyEngine(sideEffectsNeedAPerson());

  test("every side effect waits for a person, whatever its influence or provenance", () => {
    for (const sideEffect of ["idempotent", "reversible", "irreversible"] as const) {
      for (const integrity of ["trusted", "untrusted"] as const) {
        expect(engine.decide({ ...baseTuple, sideEffect, influence: { integrity, loweredBy: [] } })).toMatchObject({
          effect: "require_approval",
          ruleId: "side-effects-need-a-person",
        });
      }
    }
  });

  test("reads run; a classified read waits unless classifiedReads is allow", () => {
    expect(engine.decide(read("public"))).toMatchObject({ effect: "allow", ruleId: "reads" });
    expect(engine.decide(read("internal"))).toMatchObject({ effect: "allow", ruleId: "reads" });
    expect(engine.decide(read("confidential"))).toMatchObject({ effect: "require_approval", ruleId: "classified-reads-need-a-person" });
    expect(engine.decide(read("restricted"))).toMatchObject({ effect: "require_approval", ruleId: "classified-reads-need-a-person" });
    const open = createPolicyEngine(sideEffectsNeedAPerson({ classifiedReads: "allow" }));
    expect(open.decide(read("restricted"))).toMatchObject({ effect: "allow", ruleId: "reads" });
  });

  test("rules of your own are decided with them: a deny wins", () => {
    const withDeny = createPolicyEngine(sideEffectsNeedAPerson({ rules: [denyRule("never-close", { tool: { names: ["close_account"] } })] }));
    expect(withDeny.decide({ ...baseTuple, tool: { ...baseTuple.tool, name: "close_account" } })).toMatchObject({ effect: "deny", ruleId: "never-close" });
  });

  test("is an ordinary document: a stable revision that changes with its options", () => {
    expect(policyRevisionOf(sideEffectsNeedAPerson())).toBe(policyRevisionOf(sideEffectsNeedAPerson()));
    expect(policyRevisionOf(sideEffectsNeedAPerson({ classifiedReads: "allow" }))).not.toBe(policyRevisionOf(sideEffectsNeedAPerson()));
    const document = sideEffectsNeedAPerson({ id: "acme-writes" });
    expect(loadPolicy(JSON.parse(JSON.stringify(document)))).toEqual(document);
    expect(document.rules.map((rule) => rule.id)).toEqual(["reads", "classified-reads-need-a-person", "side-effects-need-a-person"]);
  });
});
