import type { PolicyDecision, PolicyTuple } from "@yoke/protocol";
import { integrityOf } from "./compile-rule.js";
import { delegationStanding } from "./delegation-standing.js";
import type { PolicyRule } from "./rule-types.js";

/** The rule id of a decision the untrusted-influence default made. */
export const INFLUENCE_DEFAULT_RULE = "influence-default";

/** Whether a rule grants under untrusted influence by name: its `influence` lists `"untrusted"` (a wildcard does not). */
export function namesUntrustedInfluence(rule: PolicyRule): boolean {
  const influence = rule.match.influence;
  return Array.isArray(influence) && influence.includes("untrusted");
}

/**
 * The untrusted-influence default, for any engine: an `allow` of a side effect (`sideEffect`
 * other than `"none"`) proposed after untrusted content (`tuple.influence.integrity` is not
 * `"trusted"`; a tuple without one counts as untrusted) becomes `require_approval` under rule
 * `influence-default`, with a reason naming the items that lowered it, unless `explicit` (the
 * rule that allowed it named untrusted influence). Any other decision is returned as it is, and
 * so is a call within the run's delegation (`tuple.delegation.within`): the user asked for that
 * effect, and its arguments are the rules' to check.
 * `createPolicyEngine` applies it; an engine of your own calls it on its own decisions.
 *
 * @example
 * ```ts
 * const decision = applyInfluenceDefault(tuple, cedarDecision, cedarRuleNamesUntrusted);
 * ```
 */
export function applyInfluenceDefault(tuple: PolicyTuple, decision: PolicyDecision, explicit: boolean): PolicyDecision {
  if (decision.effect !== "allow" || explicit || tuple.sideEffect === "none" || integrityOf(tuple) === "trusted") return decision;
  if (delegationStanding(tuple) === "within") return decision;
  return Object.freeze({
    effect: "require_approval" as const,
    ruleId: INFLUENCE_DEFAULT_RULE,
    policyRevision: decision.policyRevision,
    reason: `rule "${decision.ruleId}" allows "${String(tuple.tool?.name)}", but the decision to make this side effect followed untrusted content (${loweringItems(tuple)}); a person decides (a rule whose influence lists "untrusted" allows it without one)`,
  });
}

/** The items that lowered a tuple's influence, as a person reads them: `call_3 (read_file output)`, and how many more. */
function loweringItems(tuple: PolicyTuple): string {
  const influence = tuple.influence;
  const listed = Array.isArray(influence?.loweredBy) ? influence.loweredBy : [];
  if (listed.length === 0) return "the tuple does not say which: its influence is missing";
  const names = listed.map((item) => `${String(item.itemId)} (${item.toolName === undefined ? String(item.label) : `${String(item.toolName)} output`})`);
  const more = typeof influence?.more === "number" && influence.more > 0 ? ` and ${influence.more} more` : "";
  return `${names.join(", ")}${more}`;
}
