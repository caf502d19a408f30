import { type PolicyTuple, YokeError } from "@yoke/protocol";
import { describe, expect, test } from "vitest";
import { baseMatch, baseTuple, documentOf, untrustedTuple } from "./__fixtures__/tuples.js";
import {
  applyInfluenceDefault,
  createPolicyEngine,
  INFLUENCE_DEFAULT_RULE,
  loadPolicy,
  type PolicyRule,
  policyRevisionOf,
  type RuleMatch,
  safeLoadPolicy,
} from "./index.js";

const allow = (id: string, match: RuleMatch = baseMatch): PolicyRule => ({ id, effect: "allow", match });
const withInfluence = (influence: NonNullable<RuleMatch["influence"]>): RuleMatch => ({ ...baseMatch, influence });

describe("the influence condition of a rule", () => {
  test.each([
    ["a bare string", "untrusted"],
    ["an empty list", []],
    ["an unknown level", ["trusted", "tainted"]],
    ["a boolean", [true]],
  ])("%s is POLICY_INVALID naming the rule's influence", (_name, influence) => {
    const result = safeLoadPolicy({ version: 1, id: "p", rules: [{ id: "r", effect: "allow", match: { ...baseMatch, influence } }] });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(YokeError.hasCode(result.error, "POLICY_INVALID")).toBe(true);
    expect(result.error.message).toContain("rules[0].match.influence");
  });

  test("a bad defaults.untrustedInfluence is POLICY_INVALID", () => {
    const result = safeLoadPolicy({ version: 1, id: "p", defaults: { untrustedInfluence: "deny" }, rules: [] });
    expect(result.success).toBe(false);
    if (!result.success) expect(result.error.message).toContain("defaults.untrustedInfluence");
  });

  test("is optional: a document without it keeps its revision, and naming the default changes nothing", () => {
    const plain = documentOf([allow("send")]);
    expect(policyRevisionOf({ ...plain, defaults: { untrustedInfluence: "require_approval" } })).toBe(policyRevisionOf(plain));
    expect(loadPolicy({ ...plain, defaults: { untrustedInfluence: "require_approval" } }).defaults).toEqual({ readOnly: "allow" });
    expect(policyRevisionOf({ ...plain, defaults: { untrustedInfluence: "allow" } })).not.toBe(policyRevisionOf(plain));
  });

  test("matches the tuple's integrity; a tuple without one counts as untrusted", () => {
    const engine = createPolicyEngine(documentOf([allow("trusted-only", withInfluence(["trusted"]))]));
    expect(engine.decide(baseTuple)).toMatchObject({ effect: "allow", ruleId: "trusted-only" });
    expect(engine.decide(untrustedTuple)).toMatchObject({ effect: "deny", ruleId: "default-deny" });
    expect(engine.decide(untrustedTuple).reason).toContain("fails on influence");
    const { influence: _dropped, ...bare } = baseTuple;
    expect(engine.decide(bare as PolicyTuple)).toMatchObject({ effect: "deny", ruleId: "default-deny" });
  });

  test("a deny rule may name it: side effects after untrusted content are refused outright", () => {
    const engine = createPolicyEngine(documentOf([allow("send"), { id: "no-steered-payments", effect: "deny", match: { influence: ["untrusted"] } }]));
    expect(engine.decide(untrustedTuple)).toMatchObject({ effect: "deny", ruleId: "no-steered-payments" });
    expect(engine.decide(baseTuple)).toMatchObject({ effect: "allow", ruleId: "send" });
  });
});

describe("the untrusted-influence default", () => {
  test("an allowed side effect proposed after untrusted content needs a person, and the reason names what lowered it", () => {
    const decision = createPolicyEngine(documentOf([allow("send")])).decide(untrustedTuple);
    expect(decision).toMatchObject({ effect: "require_approval", ruleId: INFLUENCE_DEFAULT_RULE });
    expect(decision.reason).toContain('rule "send" allows "send_money"');
    expect(decision.reason).toContain("call_1 (read_file output)");
  });

  test("a wildcard is not explicit; a rule listing untrusted allows without a person, even behind an earlier wildcard rule", () => {
    expect(createPolicyEngine(documentOf([allow("send", withInfluence("*"))])).decide(untrustedTuple).ruleId).toBe(INFLUENCE_DEFAULT_RULE);
    const both = createPolicyEngine(documentOf([allow("wildcard"), allow("explicit", withInfluence(["trusted", "untrusted"]))]));
    expect(both.decide(untrustedTuple)).toMatchObject({ effect: "allow", ruleId: "explicit" });
    // Under trusted influence the first allow rule in the document names the decision, as always.
    expect(both.decide(baseTuple)).toMatchObject({ effect: "allow", ruleId: "wildcard" });
  });

  test("defaults.untrustedInfluence: allow turns it off", () => {
    const engine = createPolicyEngine(documentOf([allow("send")], { untrustedInfluence: "allow" }));
    expect(engine.decide(untrustedTuple)).toMatchObject({ effect: "allow", ruleId: "send" });
  });

  test("reads, denials and approvals are left as the rules decide them", () => {
    const read = { ...untrustedTuple, sideEffect: "none" as const, dataClassification: "internal" as const };
    expect(createPolicyEngine(documentOf([allow("read", { ...baseMatch, sideEffect: ["none"] })])).decide(read)).toMatchObject({
      effect: "allow",
      ruleId: "read",
    });
    expect(createPolicyEngine(documentOf([])).decide(read)).toMatchObject({ effect: "allow", ruleId: "default-read-only" });
    expect(createPolicyEngine(documentOf([])).decide(untrustedTuple)).toMatchObject({ effect: "deny", ruleId: "default-deny" });
    const approval: PolicyRule = { id: "ask", effect: "require_approval", match: baseMatch };
    expect(createPolicyEngine(documentOf([allow("send"), approval])).decide(untrustedTuple)).toMatchObject({ effect: "require_approval", ruleId: "ask" });
  });

  test("a tuple without influence (an older caller) counts as untrusted: fail closed", () => {
    const { influence: _dropped, ...bare } = baseTuple;
    const decision = createPolicyEngine(documentOf([allow("send")])).decide(bare as PolicyTuple);
    expect(decision).toMatchObject({ effect: "require_approval", ruleId: INFLUENCE_DEFAULT_RULE });
    expect(decision.reason).toContain("its influence is missing");
  });

  test("the reason counts the lowering items it does not list", () => {
    const crowded: PolicyTuple = {
      ...baseTuple,
      influence: {
        integrity: "untrusted",
        loweredBy: [
          { itemId: "call_1", label: "tool_output", toolName: "read_file" },
          { itemId: "input:9", label: "runtime" },
        ],
        more: 5,
      },
    };
    const reason = createPolicyEngine(documentOf([allow("send")])).decide(crowded).reason;
    expect(reason).toContain("call_1 (read_file output), input:9 (runtime) and 5 more");
  });

  test("applyInfluenceDefault is what another engine calls on its own decisions", () => {
    const allowed = { effect: "allow" as const, ruleId: "cedar-permit-7", policyRevision: "f".repeat(64), reason: "permit" };
    expect(applyInfluenceDefault(untrustedTuple, allowed, false)).toMatchObject({
      effect: "require_approval",
      ruleId: INFLUENCE_DEFAULT_RULE,
      policyRevision: "f".repeat(64),
    });
    expect(applyInfluenceDefault(untrustedTuple, allowed, true)).toBe(allowed);
    expect(applyInfluenceDefault(baseTuple, allowed, false)).toBe(allowed);
    const denied = { ...allowed, effect: "deny" as const };
    expect(applyInfluenceDefault(untrustedTuple, denied, false)).toBe(denied);
  });

  test("influence-default is a reserved rule id", () => {
    expect(safeLoadPolicy(documentOf([allow(INFLUENCE_DEFAULT_RULE)])).success).toBe(false);
  });
});
