import type { AnyToolDeclaration, PolicyDecision, PolicyEngineV1 } from "@yoke/protocol";

/** The rule a decision names when the tool's own `needsApproval` asked for a person. */
export const TOOL_APPROVAL_RULE = "tool:needsApproval";

/**
 * The policy revision decisions and approval bindings name in a run without a policy engine:
 * a tool's `needsApproval` parks calls there too, and the binding still pins arguments, tool
 * revision, resource revision, tenant and principal. SHA-256 of `yoke:no-policy` (a revision is a digest).
 */
export const NO_POLICY_REVISION = "be7bd1a6972fdbdfffcf2ffdd10011729ac9d32ff5ee590119606fe4933b144e";

/** Allows every call: the engine a run without one decides with, so a tool's ask is combined the same way. */
export const NO_POLICY_ENGINE: PolicyEngineV1 = {
  specificationVersion: "v1",
  revision: NO_POLICY_REVISION,
  decide: () => ({ effect: "allow", ruleId: "default", policyRevision: NO_POLICY_REVISION, reason: "no policy engine" }),
};

/** What the tool says of one call: no person needed, a person needed, or its function failed. */
export type ToolAsk = { readonly kind: "no" } | { readonly kind: "ask"; readonly reason: string } | { readonly kind: "failed"; readonly reason: string };

/**
 * The tool's `needsApproval` for one call (its parsed arguments), evaluated once, at
 * admission; the decision it makes is what the journal keeps. A function that throws or
 * answers anything but a boolean is `failed`: the call is refused, never run unasked.
 */
export function toolAsks(tool: AnyToolDeclaration, value: unknown): ToolAsk {
  const rule = tool.needsApproval;
  if (rule === undefined || rule === false) return { kind: "no" };
  if (rule === true) return { kind: "ask", reason: `every call to ${tool.name} needs a person's approval (the tool's needsApproval)` };
  let verdict: unknown;
  try {
    verdict = rule(value);
  } catch (error) {
    return { kind: "failed", reason: `the needsApproval of ${tool.name} threw: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (typeof verdict !== "boolean") return { kind: "failed", reason: `the needsApproval of ${tool.name} answered ${typeof verdict}, not a boolean` };
  return verdict ? { kind: "ask", reason: `${tool.name} needs a person's approval for these arguments (the tool's needsApproval)` } : { kind: "no" };
}

/**
 * The stricter of the policy's decision and the tool's ask: deny, then approval, then allow.
 * A policy that denies or asks keeps its own rule; a policy that allows a call the tool asks
 * for becomes an approval under rule `tool:needsApproval` (its reason names the policy's rule).
 */
export function stricterDecision(decision: PolicyDecision, ask: ToolAsk): PolicyDecision {
  if (ask.kind === "no" || decision.effect === "deny") return decision;
  const { policyRevision } = decision;
  if (ask.kind === "failed") return { effect: "deny", ruleId: TOOL_APPROVAL_RULE, policyRevision, reason: `${ask.reason}; the call was not run` };
  if (decision.effect === "require_approval") return decision;
  const allowed = decision.ruleId === "default" && policyRevision === NO_POLICY_REVISION ? "" : `; the policy allowed it (rule ${decision.ruleId})`;
  return { effect: "require_approval", ruleId: TOOL_APPROVAL_RULE, policyRevision, reason: `${ask.reason}${allowed}` };
}
