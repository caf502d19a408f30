import { loadPolicy } from "./policy-document.js";
import type { DenyRule, GrantingRule, PartialRuleMatch, PolicyDocument, RuleMatch } from "./rule-types.js";

/**
 * An allow rule. `match` is a full `RuleMatch`: leaving a dimension out is a compile error
 * (write `"*"` where any value will do), so TypeScript catches what `loadPolicy` would
 * reject in JSON.
 *
 * @example
 * ```ts
 * const readOwnFiles = allowRule("read-own-files", {
 *   tenant: "*", principal: { ids: "*", authenticated: [true] }, scopes: "*",
 *   tool: { names: ["read_file"], revisions: "*", owners: "*" }, verb: ["read"], resource: ["file:*"],
 *   path: ["/home/*"], dataClassification: ["public", "internal"], destination: [null], baseRevision: "*",
 *   sideEffect: ["none"], expectedEffect: "*", provenance: "*",
 * });
 * ```
 */
export function allowRule(id: string, match: RuleMatch, reason?: string): GrantingRule {
  return reason === undefined ? { id, effect: "allow", match } : { id, effect: "allow", reason, match };
}

/**
 * A require_approval rule: the call waits for a person. Like `allowRule`, `match` names every
 * dimension.
 *
 * @example
 * ```ts
 * const bigTransfers = approvalRule("transfers-need-a-person", { ...transferMatch, expectedEffect: ["amount>1000"] }, "large transfer");
 * ```
 */
export function approvalRule(id: string, match: RuleMatch, reason?: string): GrantingRule {
  return reason === undefined ? { id, effect: "require_approval", match } : { id, effect: "require_approval", reason, match };
}

/**
 * A deny rule: it names only the dimensions it cares about and wins over every allow and
 * require_approval rule that also matches. It carries no provenance condition (`loadPolicy`
 * rejects one): put provenance on the granting rules, and a call that fails it matches none
 * of them and is denied by default.
 *
 * @example
 * ```ts
 * // Restricted data never leaves for a destination, whatever an allow rule says.
 * const keepRestrictedIn = denyRule("keep-restricted-in", { dataClassification: ["restricted"], destination: ["*"] });
 * ```
 */
export function denyRule(id: string, match: PartialRuleMatch, reason?: string): DenyRule {
  return reason === undefined ? { id, effect: "deny", match } : { id, effect: "deny", reason, match };
}

/**
 * A policy document written in TypeScript, validated at once (`loadPolicy`: duplicate ids and
 * malformed patterns throw POLICY_INVALID) and returned frozen with its defaults filled in.
 *
 * @example
 * ```ts
 * const policy = definePolicy({ version: 1, id: "acme", rules: [readOwnFiles, keepRestrictedIn] });
 * const engine = createPolicyEngine(policy);
 * ```
 */
export function definePolicy(document: PolicyDocument): PolicyDocument {
  return loadPolicy(document);
}
