import { type PolicyTuple, YokeError } from "@yoke/protocol";
import { describe, expect, test } from "vitest";
import { baseMatch, baseTuple, documentOf, untrustedTuple } from "./__fixtures__/tuples.js";
import {
  applyDelegationDefault,
  applyInfluenceDefault,
  createPolicyEngine,
  DELEGATION_DEFAULT_RULE,
  loadPolicy,
  type PolicyRule,
  policyRevisionOf,
  RESERVED_RULE_IDS,
  type RuleMatch,
  safeLoadPolicy,
} from "./index.js";

const allow = (id: string, match: RuleMatch = baseMatch): PolicyRule => ({ id, effect: "allow", match });
const withDelegation = (delegation: NonNullable<RuleMatch["delegation"]>): RuleMatch => ({ ...baseMatch, delegation });

const within = { within: true, grantId: "pay-rent", used: 0, max: 1 };
const spent = { within: false, grantId: "pay-rent", used: 1, max: 1 };
const uncovered = { within: false, used: 0, max: 0 };
const tupleWith = (tuple: PolicyTuple, delegation: PolicyTuple["delegation"]): PolicyTuple => ({ ...tuple, delegation });

describe("the delegation condition of a rule", () => {
  test.each([
    ["a bare string", "within"],
    ["an empty list", []],
    ["an unknown standing", ["within", "inside"]],
    ["a boolean", [true]],
  ])("%s is POLICY_INVALID naming the rule's delegation", (_name, delegation) => {
    const result = safeLoadPolicy({ version: 1, id: "p", rules: [{ id: "r", effect: "allow", match: { ...baseMatch, delegation } }] });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(YokeError.hasCode(result.error, "POLICY_INVALID")).toBe(true);
    expect(result.error.message).toContain("rules[0].match.delegation");
  });

  test("a bad defaults.outsideDelegation is POLICY_INVALID", () => {
    const result = safeLoadPolicy({ version: 1, id: "p", defaults: { outsideDelegation: "deny" }, rules: [] });
    expect(result.success).toBe(false);
    if (!result.success) expect(result.error.message).toContain("defaults.outsideDelegation");
  });

  test("is optional: a document without it keeps its revision, and naming the default changes nothing", () => {
    const plain = documentOf([allow("send")]);
    expect(policyRevisionOf({ ...plain, defaults: { outsideDelegation: "require_approval" } })).toBe(policyRevisionOf(plain));
    expect(loadPolicy({ ...plain, defaults: { outsideDelegation: "require_approval" } }).defaults).toEqual({ readOnly: "allow" });
    expect(policyRevisionOf({ ...plain, defaults: { outsideDelegation: "allow" } })).not.toBe(policyRevisionOf(plain));
  });

  test("delegation-default is a reserved rule id", () => {
    expect(RESERVED_RULE_IDS).toContain(DELEGATION_DEFAULT_RULE);
    const result = safeLoadPolicy(documentOf([allow(DELEGATION_DEFAULT_RULE)]));
    expect(result.success).toBe(false);
  });

  test.each([
    ["within", within, "within"],
    ["spent", spent, "outside"],
    ["uncovered", uncovered, "outside"],
    ["absent", undefined, "none"],
  ] as const)("a %s standing (%o) matches %s", (_name, delegation, standing) => {
    const engine = createPolicyEngine(
      documentOf([{ id: "only", effect: "deny", match: { delegation: [standing] } }, allow("send", { ...baseMatch, delegation: "*" })]),
    );
    expect(engine.decide(tupleWith(baseTuple, delegation))).toMatchObject({ effect: "deny", ruleId: "only" });
    const others = (["within", "outside", "none"] as const).filter((other) => other !== standing);
    const missing = createPolicyEngine(documentOf([{ id: "others", effect: "deny", match: { delegation: others } }]));
    expect(missing.decide(tupleWith(baseTuple, delegation)).ruleId).not.toBe("others");
  });

  test("a malformed standing counts as outside (fail closed)", () => {
    const engine = createPolicyEngine(documentOf([allow("within-only", withDelegation(["within"]))]));
    const odd = { ...baseTuple, delegation: { within: "yes" } } as unknown as PolicyTuple;
    expect(engine.decide(odd).effect).not.toBe("allow");
  });
});

describe("the delegation default", () => {
  const engine = createPolicyEngine(documentOf([allow("send")]));

  test("an allowed side effect outside the delegation needs a person, naming the tool and the grant's state", () => {
    const decided = engine.decide(tupleWith(baseTuple, spent));
    expect(decided).toMatchObject({ effect: "require_approval", ruleId: DELEGATION_DEFAULT_RULE });
    expect(decided.reason).toContain('"send_money"');
    expect(decided.reason).toContain('grant "pay-rent" is spent: 1 of 1 used');
    expect(engine.decide(tupleWith(baseTuple, uncovered)).reason).toContain("no grant names this tool");
  });

  test("even under trusted influence and trusted arguments; reads are left alone", () => {
    expect(engine.decide(tupleWith(baseTuple, uncovered)).effect).toBe("require_approval");
    const read = createPolicyEngine(documentOf([allow("read", { ...baseMatch, sideEffect: ["none"] })]));
    expect(read.decide({ ...tupleWith(baseTuple, uncovered), sideEffect: "none" })).toMatchObject({ effect: "allow", ruleId: "read" });
  });

  test("a call within the delegation is decided by the rules, whatever the influence", () => {
    expect(engine.decide(tupleWith(untrustedTuple, within))).toMatchObject({ effect: "allow", ruleId: "send" });
    // Without a delegation, the influence default is as before.
    expect(engine.decide(untrustedTuple)).toMatchObject({ effect: "require_approval", ruleId: "influence-default" });
    // Within, a rule that denies still denies: the arguments are still the rules' to check.
    const strict = createPolicyEngine(
      documentOf([{ id: "no-untrusted-recipient", effect: "deny", match: { tool: { names: ["send_money"] } } }, allow("send")]),
    );
    expect(strict.decide(tupleWith(untrustedTuple, within))).toMatchObject({ effect: "deny", ruleId: "no-untrusted-recipient" });
  });

  test("outside and untrusted: the delegation default names the decision", () => {
    expect(engine.decide(tupleWith(untrustedTuple, spent))).toMatchObject({ effect: "require_approval", ruleId: DELEGATION_DEFAULT_RULE });
  });

  test("a rule that lists outside allows without a person; a wildcard does not", () => {
    const explicit = createPolicyEngine(documentOf([allow("outside-ok", withDelegation(["outside"]))]));
    expect(explicit.decide(tupleWith(baseTuple, spent))).toMatchObject({ effect: "allow", ruleId: "outside-ok" });
    const wildcard = createPolicyEngine(documentOf([allow("any", withDelegation("*"))]));
    expect(wildcard.decide(tupleWith(baseTuple, spent))).toMatchObject({ effect: "require_approval", ruleId: DELEGATION_DEFAULT_RULE });
  });

  test("defaults.outsideDelegation: allow turns it off", () => {
    const off = createPolicyEngine(documentOf([allow("send")], { outsideDelegation: "allow" }));
    expect(off.decide(tupleWith(baseTuple, spent))).toMatchObject({ effect: "allow", ruleId: "send" });
  });

  test("applyDelegationDefault, for other engines: only an allowed side effect outside a delegation changes", () => {
    const allowed = { effect: "allow" as const, ruleId: "cedar-1", policyRevision: "c".repeat(64), reason: "ok" };
    expect(applyDelegationDefault(tupleWith(baseTuple, spent), allowed, false)).toMatchObject({ effect: "require_approval", ruleId: DELEGATION_DEFAULT_RULE });
    expect(applyDelegationDefault(tupleWith(baseTuple, spent), allowed, true)).toBe(allowed);
    expect(applyDelegationDefault(tupleWith(baseTuple, within), allowed, false)).toBe(allowed);
    expect(applyDelegationDefault(baseTuple, allowed, false)).toBe(allowed);
    const denied = { ...allowed, effect: "deny" as const };
    expect(applyDelegationDefault(tupleWith(baseTuple, spent), denied, false)).toBe(denied);
    // The influence default leaves a call within the delegation to the rules.
    expect(applyInfluenceDefault(tupleWith(untrustedTuple, within), allowed, false)).toBe(allowed);
    expect(applyInfluenceDefault(tupleWith(untrustedTuple, spent), allowed, false)).toMatchObject({ ruleId: "influence-default" });
  });
});
