import type { PolicyDecision, PolicyEngineV1 } from "@yoke/protocol";

/** The revision the world's policy names in every decision (a SHA-256 hex digest, as decisions need). */
export const WORLD_POLICY_REVISION = "5e1f0c0ffee5e1f0c0ffee5e1f0c0ffee5e1f0c0ffee5e1f0c0ffee5e1f0c0ff";

/**
 * The policy of a simulated world: calls to the tools named in `approval` are parked for a
 * person's approval, every other call is allowed. Deterministic, as a policy must be: the
 * same tuple always gets the same decision.
 */
export function worldPolicy(approval: readonly string[]): PolicyEngineV1 {
  const parked = new Set(approval);
  return {
    specificationVersion: "v1",
    revision: WORLD_POLICY_REVISION,
    decide(tuple): PolicyDecision {
      return parked.has(tuple.tool.name)
        ? {
            effect: "require_approval",
            ruleId: "world-approval",
            policyRevision: WORLD_POLICY_REVISION,
            reason: `${tuple.tool.name} needs a person's approval in this world`,
          }
        : { effect: "allow", ruleId: "world-allow", policyRevision: WORLD_POLICY_REVISION, reason: "allowed in this world" };
    },
  };
}
