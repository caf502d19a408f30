import type { YokeEvent } from "./events.js";
import type { ActionAuthority, ActionRecord } from "./run-state-types.js";

type AuthorityEvent = Extract<
  YokeEvent,
  { type: "action.admitted" | "action.approval_requested" | "action.authorized" | "action.leased" | "action.executing" }
>;

/**
 * The record's `authority` after `event`: changed only by an event that names a decision or an
 * approval, so a run without a policy engine folds exactly the records it did before.
 */
export function authorityAfter(current: ActionRecord | undefined, event: AuthorityEvent): { authority?: ActionAuthority } {
  const after = authorityOf(current, event);
  // The standing against the delegation the action was first decided with goes with it: a later attempt holds that count.
  const delegation = current?.authority?.delegation ?? delegationOf(event);
  return delegation === undefined || after.authority === undefined ? after : { authority: { ...after.authority, delegation } };
}

function delegationOf(event: AuthorityEvent): ActionAuthority["delegation"] {
  return event.type === "action.admitted" || event.type === "action.approval_requested" || event.type === "action.authorized"
    ? event.data.delegation
    : undefined;
}

function authorityOf(current: ActionRecord | undefined, event: AuthorityEvent): { authority?: ActionAuthority } {
  const kept = current?.authority;
  switch (event.type) {
    case "action.approval_requested":
      return { authority: { rule: event.data.policy.ruleId, policy: event.data.policy } };
    case "action.authorized": {
      const { approvalId, policy, rule } = event.data;
      if (approvalId !== undefined) return { authority: { rule, approvalId, ...(kept?.policy === undefined ? {} : { policy: kept.policy }) } };
      return policy === undefined ? {} : { authority: { rule, policy } };
    }
    case "action.admitted":
      return event.data.policy === undefined ? {} : { authority: { rule: event.data.rule, policy: event.data.policy } };
    case "action.leased":
    case "action.executing": {
      const { policy, rule } = event.data;
      if (policy === undefined || rule === undefined) return {};
      // An approved action keeps its approval: a later attempt under the same policy revision is still the approved one.
      return { authority: { rule, policy, ...(kept?.approvalId === undefined ? {} : { approvalId: kept.approvalId }) } };
    }
  }
}
