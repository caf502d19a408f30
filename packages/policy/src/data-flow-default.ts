import type { PolicyDecision, PolicyTuple } from "@yoke/protocol";
import { type CompiledRule, type FactCache, matchesAll } from "./compile-rule.js";
import { namesUntrustedInfluence } from "./influence-default.js";
import type { PolicyRule } from "./rule-types.js";

/** The rule id of a decision the data-flow default made. */
export const DATA_FLOW_DEFAULT_RULE = "data-flow-default";

/** The classifications the default guards: personal data (`confidential`) and secrets (`restricted`). */
const GUARDED: ReadonlySet<string> = new Set(["confidential", "restricted"]);

/**
 * Whether a rule grants a guarded flow by name: its `carries.classifications` lists
 * `confidential` or `restricted` (a wildcard, or a condition without classifications, does not).
 */
export function namesDataFlow(rule: PolicyRule): boolean {
  const carries = rule.match.carries;
  return carries !== undefined && carries !== "*" && Array.isArray(carries.classifications) && carries.classifications.some((name) => GUARDED.has(name));
}

/** Whether the data-flow default would turn an allow of this tuple into a request for a person. */
export function dataFlowGuarded(tuple: PolicyTuple): boolean {
  const carries = tuple.carries;
  return carries !== undefined && carries !== null && carries.outward === true && carries.fromToolOutput === true && GUARDED.has(carries.classification);
}

/**
 * The data-flow default, for any engine: an `allow` of an outward call (`tuple.carries.outward`)
 * carrying `confidential` (personal) or `restricted` (secret) data found in tool outputs becomes
 * `require_approval` under rule `data-flow-default`, unless `explicit` (the rule that allowed it
 * lists that classification in its `carries`). A tuple without `carries` (its tool declares no
 * payloads) and any other decision are returned as they are. `createPolicyEngine` applies it
 * after the influence default; an engine of your own calls it on its own decisions.
 *
 * @example
 * ```ts
 * const decision = applyDataFlowDefault(tuple, cedarDecision, cedarRuleNamesTheFlow);
 * ```
 */
export function applyDataFlowDefault(tuple: PolicyTuple, decision: PolicyDecision, explicit: boolean): PolicyDecision {
  if (decision.effect !== "allow" || explicit || !dataFlowGuarded(tuple)) return decision;
  const carries = tuple.carries!;
  const untrusted = carries.fromUntrusted ? ", some of it only in third-party content" : "";
  return Object.freeze({
    effect: "require_approval" as const,
    ruleId: DATA_FLOW_DEFAULT_RULE,
    policyRevision: decision.policyRevision,
    reason: `rule "${decision.ruleId}" allows "${String(tuple.tool?.name)}", but the call sends ${carries.classification} data found in tool outputs${untrusted} out of the account; a person decides (a rule whose carries lists "${carries.classification}" allows it without one)`,
  });
}

/**
 * The first allow rule (by document order) among `candidates` that matches the tuple and names
 * the guarded flow, and names untrusted influence too when `influenceApplies`: it wins over an
 * earlier allow that does not, so writing the explicit rule anywhere in the document is enough.
 */
export function explicitFlowAllow(
  candidates: readonly (readonly CompiledRule[])[],
  tuple: PolicyTuple,
  facts: FactCache,
  influenceApplies: boolean,
): CompiledRule | undefined {
  let found: CompiledRule | undefined;
  for (const list of candidates) {
    for (const compiled of list) {
      const { rule } = compiled;
      if (rule.effect !== "allow" || (found !== undefined && found.index < compiled.index)) continue;
      if (!namesDataFlow(rule) || (influenceApplies && !namesUntrustedInfluence(rule))) continue;
      if (matchesAll(compiled, tuple, facts)) found = compiled;
    }
  }
  return found;
}
