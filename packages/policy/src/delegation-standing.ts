import type { PolicyTuple } from "@yoke/protocol";
import type { DelegationStanding } from "./rule-types.js";

/**
 * Where a tuple's call stands against the run's delegation: `"none"` without one, `"within"`
 * only when the tuple says so in so many words (`within: true`), `"outside"` otherwise (a
 * malformed member fails closed: nothing shows a grant covers the call).
 */
export function delegationStanding(tuple: PolicyTuple): DelegationStanding {
  const delegation = tuple.delegation as unknown;
  if (delegation === undefined) return "none";
  return typeof delegation === "object" && delegation !== null && (delegation as { within?: unknown }).within === true ? "within" : "outside";
}
