import { describe, expect, test } from "vitest";
import { describePolicyEngine } from "./__fixtures__/engine-suite.js";
import { anyMatch, baseMatch, baseTuple, dimensionCases, documentOf } from "./__fixtures__/tuples.js";
import { createPolicyEngine, type PolicyRule, type RuleMatch } from "./index.js";

describePolicyEngine("createPolicyEngine", (document) => createPolicyEngine(document));

const allow = (id: string, match: RuleMatch, reason?: string): PolicyRule =>
  reason === undefined ? { id, effect: "allow", match } : { id, effect: "allow", reason, match };

describe("createPolicyEngine: reasons", () => {
  test.each(dimensionCases)("a default deny names the nearest rule and the one dimension it failed on: $dimension", ({ dimension, rule, tuple }) => {
    const engine = createPolicyEngine(documentOf([allow("near", rule)]));
    const reason = engine.decide(baseTuple).reason;
    expect(reason).toContain('"near"');
    expect(reason).toMatch(new RegExp(`fails on ${dimension.replace(".", "\\.")};`));
    expect(createPolicyEngine(documentOf([allow("near", baseMatch)])).decide(tuple).reason).toMatch(new RegExp(`fails on ${dimension.replace(".", "\\.")};`));
  });

  test("the nearest rule is the one failing the fewest dimensions", () => {
    const far = { ...baseMatch, tenant: ["globex"], verb: ["refund"] };
    const near = { ...baseMatch, verb: ["refund"] };
    const reason = createPolicyEngine(documentOf([allow("far", far), allow("near", near)])).decide(baseTuple).reason;
    expect(reason).toContain('nearest rule "near" (allow) fails on verb;');
  });

  test("with only rules for other tools, the nearest of them is named; with no granting rule at all, the reason says so", () => {
    const rules = [
      allow("other", { ...baseMatch, tool: { ...baseMatch.tool, names: ["read_file"] }, sideEffect: ["none"] }),
      allow("same", { ...baseMatch, tool: { ...baseMatch.tool, names: ["read_file"] } }),
    ];
    expect(createPolicyEngine(documentOf(rules)).decide(baseTuple).reason).toContain('nearest rule "same" (allow) fails on tool.names;');
    const reason = createPolicyEngine(documentOf([{ id: "d", effect: "deny", match: { tenant: ["globex"] } }])).decide(baseTuple).reason;
    expect(reason).toContain('"send_money"');
    expect(reason).toContain("the policy has no allow or require_approval rule");
  });

  test("a rule's own reason is the decision's reason; without one the reason names the rule", () => {
    expect(createPolicyEngine(documentOf([allow("send", baseMatch, "rent to the landlord")])).decide(baseTuple).reason).toBe("rent to the landlord");
    expect(createPolicyEngine(documentOf([allow("send", baseMatch)])).decide(baseTuple).reason).toContain('rule "send" allows "send_money"');
  });
});

describe("createPolicyEngine: the document it was built from", () => {
  test("changing the document after the engine exists changes no decision and not the revision", () => {
    const rules: PolicyRule[] = [allow("send", { ...baseMatch, tenant: ["acme"] })];
    const document = { version: 1 as const, id: "mutable", rules };
    const engine = createPolicyEngine(document);
    const revision = engine.revision;
    rules.push({ id: "deny-all", effect: "deny", match: {} });
    (rules[0]!.match.tenant as string[]).push("globex");
    expect(engine.decide(baseTuple)).toMatchObject({ effect: "allow", ruleId: "send" });
    expect(engine.decide({ ...baseTuple, tenantId: "globex" })).toMatchObject({ effect: "deny", ruleId: "default-deny" });
    expect(engine.revision).toBe(revision);
    expect(Object.isFrozen(engine)).toBe(true);
  });

  test("a bare list of rules is a document with id inline", () => {
    const engine = createPolicyEngine([allow("send", baseMatch)]);
    expect(engine.decide(baseTuple)).toMatchObject({ effect: "allow", ruleId: "send" });
    expect(engine.revision).toBe(createPolicyEngine({ version: 1, id: "inline", rules: [allow("send", baseMatch)] }).revision);
  });

  test("an invalid document is POLICY_INVALID at creation", () => {
    expect(() => createPolicyEngine([{ id: "partial", effect: "allow", match: { tenant: "*" } } as unknown as PolicyRule])).toThrow(
      expect.objectContaining({ code: "POLICY_INVALID" }),
    );
  });
});

describe("createPolicyEngine: malformed tuples", () => {
  const malformed = { ...baseTuple, tool: { name: "send_money" }, provenance: "none" } as unknown as typeof baseTuple;

  test("validateTuples: a tuple that fails PolicyTupleSchema is denied as invalid-tuple, even by an allow-everything policy", () => {
    const engine = createPolicyEngine(documentOf([allow("everything", anyMatch)]), { validateTuples: true });
    const decision = engine.decide(malformed);
    expect(decision).toMatchObject({ effect: "deny", ruleId: "invalid-tuple" });
    expect(decision.reason).toContain("tool.revision");
    expect(engine.decide(baseTuple)).toMatchObject({ effect: "allow", ruleId: "everything" });
  });

  test("without validation a malformed tuple fails every rule naming what it lacks (fail closed)", () => {
    const engine = createPolicyEngine(documentOf([allow("send", baseMatch)]));
    expect(engine.decide(malformed)).toMatchObject({ effect: "deny", ruleId: "default-deny" });
    const noScopes = { ...baseTuple, task: { runId: "r" } } as unknown as typeof baseTuple;
    expect(engine.decide(noScopes)).toMatchObject({ effect: "deny", ruleId: "default-deny" });
  });
});

describe("createPolicyEngine: 1,000 rules", () => {
  test("rules for other tools do not change a decision, and glob tool names are still consulted", () => {
    const filler = Array.from({ length: 1_000 }, (_, index) =>
      allow(`filler-${index}`, { ...baseMatch, tool: { ...baseMatch.tool, names: [`tool_${index}`] } }),
    );
    const engine = createPolicyEngine(documentOf([...filler, allow("send", baseMatch)]));
    expect(engine.decide(baseTuple)).toMatchObject({ effect: "allow", ruleId: "send" });
    const globbed = createPolicyEngine(documentOf([...filler, allow("send-any", { ...baseMatch, tool: { ...baseMatch.tool, names: ["send_*"] } })]));
    expect(globbed.decide(baseTuple)).toMatchObject({ effect: "allow", ruleId: "send-any" });
    expect(globbed.decide({ ...baseTuple, tool: { ...baseTuple.tool, name: "tool_7" } })).toMatchObject({ effect: "allow", ruleId: "filler-7" });
    expect(globbed.decide({ ...baseTuple, tool: { ...baseTuple.tool, name: "tool_1000" } })).toMatchObject({ effect: "deny", ruleId: "default-deny" });
  });
});
