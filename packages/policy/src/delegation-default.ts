import type { PolicyDecision, PolicyTuple } from "@yoke/protocol";
import { delegationStanding } from "./delegation-standing.js";
import type { PolicyRule } from "./rule-types.js";

/** The rule id of a decision the outside-the-delegation default made. */
export const DELEGATION_DEFAULT_RULE = "delegation-default";

/** Whether a rule grants outside the delegation by name: its `delegation` lists `"outside"` (a wildcard does not). */
export function namesOutsideDelegation(rule: PolicyRule): boolean {
  const delegation = rule.match.delegation;
  return Array.isArray(delegation) && delegation.includes("outside");
}

/**
 * The delegation default, for any engine: when the run has a delegation (`tuple.delegation`
 * present), an `allow` of a side effect (`sideEffect` other than `"none"`) that no grant
 * covers with a count left becomes `require_approval` under rule `delegation-default`, with a
 * reason naming the tool and the grant's state, unless `explicit` (the rule that allowed it
 * named `"outside"`). Any other decision, and any decision of a run without a delegation, is
 * returned as it is. A call within the delegation is not subject to the untrusted-influence
 * default either (`applyInfluenceDefault` leaves it to the rules: the user asked for this
 * effect; its arguments are still checked by the rules' provenance conditions).
 * `createPolicyEngine` applies both; an engine of your own calls this one first.
 *
 * @example
 * ```ts
 * const decision = applyInfluenceDefault(tuple, applyDelegationDefault(tuple, cedarDecision, false), cedarRuleNamesUntrusted);
 * ```
 */
export function applyDelegationDefault(tuple: PolicyTuple, decision: PolicyDecision, explicit: boolean): PolicyDecision {
  if (decision.effect !== "allow" || explicit || tuple.sideEffect === "none" || delegationStanding(tuple) !== "outside") return decision;
  return Object.freeze({
    effect: "require_approval" as const,
    ruleId: DELEGATION_DEFAULT_RULE,
    policyRevision: decision.policyRevision,
    reason: `rule "${decision.ruleId}" allows "${String(tuple.tool?.name)}", but the run's delegation does not cover this call (${grantState(tuple)}); a person decides (a rule whose delegation lists "outside" allows it without one)`,
  });
}

/** The grant's state as a person reads it: which grant and how much of it is spent, or that none covers the call. */
function grantState(tuple: PolicyTuple): string {
  const delegation = tuple.delegation;
  if (typeof delegation?.grantId !== "string") return "no grant names this tool, resource and verb";
  return `grant "${delegation.grantId}" is spent: ${String(delegation.used)} of ${String(delegation.max)} used`;
}
