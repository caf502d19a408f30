import { type PolicyTuple, YokeError } from "@yoke/protocol";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { referenceDecide } from "./__fixtures__/reference-decide.js";
import { baseMatch, baseTuple, documentOf, untrustedTuple } from "./__fixtures__/tuples.js";
import {
  applyDataFlowDefault,
  createPolicyEngine,
  DATA_FLOW_DEFAULT_RULE,
  INFLUENCE_DEFAULT_RULE,
  loadPolicy,
  type PolicyRule,
  policyRevisionOf,
  type RuleMatch,
  safeLoadPolicy,
} from "./index.js";

const allow = (id: string, match: RuleMatch = baseMatch): PolicyRule => ({ id, effect: "allow", match });
const withCarries = (carries: NonNullable<RuleMatch["carries"]>, match: RuleMatch = baseMatch): RuleMatch => ({ ...match, carries });

/** `baseTuple` sending personal data read from a tool's output out of the account. */
const leaking: PolicyTuple = { ...baseTuple, carries: { classification: "confidential", fromToolOutput: true, fromUntrusted: false, outward: true } };
const carrying = (carries: Partial<NonNullable<PolicyTuple["carries"]>>): PolicyTuple => ({ ...leaking, carries: { ...leaking.carries!, ...carries } });

describe("the carries condition of a rule", () => {
  test.each([
    ["a bare string", "confidential"],
    ["an unknown member", { classification: ["confidential"] }],
    ["an empty classification list", { classifications: [] }],
    ["an unknown classification", { classifications: ["personal"] }],
    ["a flag that is not a boolean", { fromToolOutput: "yes" }],
  ])("%s is POLICY_INVALID naming the rule's carries", (_name, carries) => {
    const result = safeLoadPolicy({ version: 1, id: "p", rules: [{ id: "r", effect: "allow", match: { ...baseMatch, carries } }] });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(YokeError.hasCode(result.error, "POLICY_INVALID")).toBe(true);
    expect(result.error.message).toContain("rules[0].match.carries");
  });

  test("every member given must hold; a tuple without carries matches no condition", () => {
    const rule = allow("internal-out", withCarries({ classifications: ["public", "internal"], outward: true }));
    const engine = createPolicyEngine(documentOf([rule], { dataFlow: "allow" }));
    expect(engine.decide(carrying({ classification: "internal" }))).toMatchObject({ effect: "allow", ruleId: "internal-out" });
    expect(engine.decide(leaking)).toMatchObject({ effect: "deny", ruleId: "default-deny" });
    expect(engine.decide(leaking).reason).toContain("fails on carries");
    expect(engine.decide(carrying({ classification: "internal", outward: false })).ruleId).toBe("default-deny");
    expect(engine.decide(baseTuple).ruleId).toBe("default-deny");
    const untrustedOnly = createPolicyEngine(documentOf([allow("from-third-party", withCarries({ fromUntrusted: true }))]));
    expect(untrustedOnly.decide(carrying({ classification: "internal", fromUntrusted: true })).ruleId).toBe("from-third-party");
    expect(untrustedOnly.decide(carrying({ classification: "internal" })).ruleId).toBe("default-deny");
  });

  test("one standing deny rule names personal or secret data from tool outputs leaving the account", () => {
    const standing: PolicyRule = {
      id: "no-personal-data-out",
      effect: "deny",
      match: { carries: { classifications: ["confidential", "restricted"], fromToolOutput: true, outward: true } },
    };
    const engine = createPolicyEngine(documentOf([allow("send"), standing], { dataFlow: "allow" }));
    expect(engine.decide(leaking)).toMatchObject({ effect: "deny", ruleId: "no-personal-data-out" });
    expect(engine.decide(carrying({ classification: "restricted" })).ruleId).toBe("no-personal-data-out");
    expect(engine.decide(carrying({ fromToolOutput: false })).ruleId).toBe("send");
    expect(engine.decide(carrying({ outward: false })).ruleId).toBe("send");
    expect(engine.decide(baseTuple).ruleId).toBe("send");
  });
});

describe("the data-flow default", () => {
  test("an allowed outward call carrying personal or secret data from tool outputs needs a person, and the reason says what", () => {
    const engine = createPolicyEngine(documentOf([allow("send")]));
    const decision = engine.decide(leaking);
    expect(decision).toMatchObject({ effect: "require_approval", ruleId: DATA_FLOW_DEFAULT_RULE });
    expect(decision.reason).toContain('rule "send" allows "send_money"');
    expect(decision.reason).toContain("confidential data found in tool outputs");
    expect(engine.decide(carrying({ classification: "restricted", fromUntrusted: true })).reason).toContain("only in third-party content");
  });

  test.each([
    ["internal data", { classification: "internal" as const }],
    ["data the principals gave", { fromToolOutput: false }],
    ["a write the account keeps", { outward: false }],
  ])("leaves an allow of %s as it is", (_name, carries) => {
    expect(createPolicyEngine(documentOf([allow("send")])).decide(carrying(carries))).toMatchObject({ effect: "allow", ruleId: "send" });
  });

  test("a tool that declares no payloads (no carries) is left to the rules", () => {
    expect(createPolicyEngine(documentOf([allow("send")])).decide(baseTuple)).toMatchObject({ effect: "allow", ruleId: "send" });
  });

  test("a rule listing the classification allows without a person, even behind an earlier rule that does not", () => {
    const explicit = allow("share-contacts", withCarries({ classifications: ["confidential"], fromToolOutput: true }));
    expect(createPolicyEngine(documentOf([allow("wildcard", withCarries("*")), explicit])).decide(leaking)).toMatchObject({
      effect: "allow",
      ruleId: "share-contacts",
    });
    // A condition without classifications is not explicit.
    expect(createPolicyEngine(documentOf([allow("flags-only", withCarries({ outward: true }))])).decide(leaking).ruleId).toBe(DATA_FLOW_DEFAULT_RULE);
    // Without the guarded flow, the first allow rule still names the decision.
    expect(createPolicyEngine(documentOf([allow("wildcard"), explicit])).decide(carrying({ outward: false })).ruleId).toBe("wildcard");
  });

  test("under untrusted influence too, the rule that allows must name both", () => {
    const steered: PolicyTuple = { ...untrustedTuple, carries: leaking.carries! };
    const flowOnly = allow("flow", withCarries({ classifications: ["confidential"] }));
    expect(createPolicyEngine(documentOf([flowOnly])).decide(steered).ruleId).toBe(INFLUENCE_DEFAULT_RULE);
    const influenceOnly = allow("steered", { ...baseMatch, influence: ["untrusted"] });
    expect(createPolicyEngine(documentOf([influenceOnly])).decide(steered).ruleId).toBe(DATA_FLOW_DEFAULT_RULE);
    const both = allow("both", { ...withCarries({ classifications: ["confidential"] }), influence: ["untrusted"] });
    expect(createPolicyEngine(documentOf([flowOnly, influenceOnly, both])).decide(steered)).toMatchObject({ effect: "allow", ruleId: "both" });
  });

  test("defaults.dataFlow: allow turns it off; left out or named as the default, the revision stays", () => {
    expect(createPolicyEngine(documentOf([allow("send")], { dataFlow: "allow" })).decide(leaking)).toMatchObject({ effect: "allow", ruleId: "send" });
    const plain = documentOf([allow("send")]);
    expect(policyRevisionOf({ ...plain, defaults: { dataFlow: "require_approval" } })).toBe(policyRevisionOf(plain));
    expect(loadPolicy({ ...plain, defaults: { dataFlow: "require_approval" } }).defaults).toEqual({ readOnly: "allow" });
    expect(policyRevisionOf({ ...plain, defaults: { dataFlow: "allow" } })).not.toBe(policyRevisionOf(plain));
    const bad = safeLoadPolicy({ version: 1, id: "p", defaults: { dataFlow: "deny" }, rules: [] });
    expect(bad.success).toBe(false);
    if (!bad.success) expect(bad.error.message).toContain("defaults.dataFlow");
  });

  test("denials and approvals are left as the rules decide them", () => {
    expect(createPolicyEngine(documentOf([])).decide(leaking)).toMatchObject({ effect: "deny", ruleId: "default-deny" });
    const approval: PolicyRule = { id: "ask", effect: "require_approval", match: baseMatch };
    expect(createPolicyEngine(documentOf([allow("send"), approval])).decide(leaking)).toMatchObject({ effect: "require_approval", ruleId: "ask" });
  });

  test("applyDataFlowDefault is what another engine calls on its own decisions", () => {
    const allowed = { effect: "allow" as const, ruleId: "cedar-permit-7", policyRevision: "f".repeat(64), reason: "permit" };
    expect(applyDataFlowDefault(leaking, allowed, false)).toMatchObject({
      effect: "require_approval",
      ruleId: DATA_FLOW_DEFAULT_RULE,
      policyRevision: "f".repeat(64),
    });
    expect(applyDataFlowDefault(leaking, allowed, true)).toBe(allowed);
    expect(applyDataFlowDefault(baseTuple, allowed, false)).toBe(allowed);
    const denied = { ...allowed, effect: "deny" as const };
    expect(applyDataFlowDefault(leaking, denied, false)).toBe(denied);
  });

  test("property: rules that differ only in influence and carries decide as the specification says, whatever their order", () => {
    const CLASSIFICATIONS = ["public", "internal", "confidential", "restricted"] as const;
    const flag = fc.option(fc.boolean(), { nil: undefined });
    const carriesCondition = fc.oneof(
      fc.constant("*" as const),
      fc
        .record({
          classifications: fc.option(fc.uniqueArray(fc.constantFrom(...CLASSIFICATIONS), { minLength: 1 }), { nil: undefined }),
          fromToolOutput: flag,
          outward: flag,
        })
        .map((condition) => Object.fromEntries(Object.entries(condition).filter(([, value]) => value !== undefined))),
    );
    const rule = fc.record({
      effect: fc.constantFrom("allow" as const, "allow" as const, "require_approval" as const),
      influence: fc.option(fc.oneof(fc.constant("*" as const), fc.constant(["untrusted" as const]), fc.constant(["trusted" as const, "untrusted" as const])), {
        nil: undefined,
      }),
      carries: fc.option(carriesCondition, { nil: undefined }),
    });
    const tuple = fc.record({
      untrusted: fc.boolean(),
      carries: fc.option(
        fc.record({ classification: fc.constantFrom(...CLASSIFICATIONS), fromToolOutput: fc.boolean(), fromUntrusted: fc.boolean(), outward: fc.boolean() }),
        { nil: undefined },
      ),
    });
    const toggle = fc.constantFrom("allow" as const, "require_approval" as const, undefined);
    fc.assert(
      fc.property(
        fc.array(rule, { maxLength: 5 }),
        fc.array(tuple, { minLength: 1, maxLength: 6 }),
        toggle,
        toggle,
        (rules, tuples, influenceDefault, dataFlow) => {
          const document = documentOf(
            rules.map(({ effect, influence, carries }, index) => ({
              id: `rule-${index}`,
              effect,
              match: { ...baseMatch, ...(influence === undefined ? {} : { influence }), ...(carries === undefined ? {} : { carries }) } as RuleMatch,
            })),
            { ...(influenceDefault === undefined ? {} : { untrustedInfluence: influenceDefault }), ...(dataFlow === undefined ? {} : { dataFlow }) },
          );
          const engine = createPolicyEngine(document);
          for (const { untrusted, carries } of tuples) {
            const decided: PolicyTuple = { ...(untrusted ? untrustedTuple : baseTuple), ...(carries === undefined ? {} : { carries }) };
            const decision = engine.decide(decided);
            expect({ effect: decision.effect, ruleId: decision.ruleId }).toEqual(referenceDecide(loadPolicy(document), decided));
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  test("data-flow-default is a reserved rule id", () => {
    expect(safeLoadPolicy(documentOf([allow(DATA_FLOW_DEFAULT_RULE)])).success).toBe(false);
  });
});
