import type { RunDelegation } from "./delegation.js";
import type { YokeEvent } from "./events.js";
import { invalid } from "./fold-invalid.js";
import type { MutableRunState } from "./run-state-types.js";

type DelegationEvent = Extract<
  YokeEvent,
  { type: "run.delegated" | "action.admitted" | "action.authorized" | "action.approval_requested" | "approval.denied" | "approval.voided" }
>;

/** Whether `event` is one the delegation fold reads. */
export function isDelegationEvent(event: YokeEvent): event is DelegationEvent {
  switch (event.type) {
    case "run.delegated":
    case "action.admitted":
    case "action.authorized":
    case "action.approval_requested":
    case "approval.denied":
    case "approval.voided":
      return true;
    default:
      return false;
  }
}

/** Folds one event into `state.delegation` (a new object on every change: snapshots share the old one safely). */
export function applyDelegationEvent(state: MutableRunState, event: DelegationEvent): void {
  if (event.type === "run.delegated") {
    // Pinned before the first model call: a delegation is the task's, never set after anything was read.
    if (state.delegation !== undefined) throw invalid(event, "a second run.delegated");
    if (state.phase !== "ready" || state.turns !== 0) throw invalid(event, `run.delegated after the first turn started (phase ${state.phase})`);
    state.delegation = { delegation: event.data.delegation, used: {}, parked: {} };
    return;
  }
  const current = state.delegation;
  if (current === undefined) return;
  switch (event.type) {
    case "action.admitted":
      state.delegation = consumed(current, event.data.delegation);
      return;
    case "action.authorized": {
      const held = current.parked[event.data.actionId];
      if (event.data.approvalId !== undefined && held !== undefined) {
        // Approved within its grant: the count it held while parked is now spent.
        const { [event.data.actionId]: _spent, ...parked } = current.parked;
        state.delegation = { ...current, parked };
        return;
      }
      if (event.data.approvalId === undefined) state.delegation = consumed(current, event.data.delegation);
      return;
    }
    case "action.approval_requested": {
      const next = consumed(current, event.data.delegation);
      if (next === current) return;
      state.delegation = { ...next, parked: { ...next.parked, [event.data.actionId]: event.data.delegation!.grantId! } };
      return;
    }
    case "approval.denied":
    case "approval.voided": {
      const grantId = current.parked[event.data.actionId];
      if (grantId === undefined) return;
      const { [event.data.actionId]: _released, ...parked } = current.parked;
      state.delegation = { ...current, used: { ...current.used, [grantId]: Math.max(0, (current.used[grantId] ?? 0) - 1) }, parked };
      return;
    }
  }
}

function consumed(current: RunDelegation, decided: { within: boolean; grantId?: string } | undefined): RunDelegation {
  if (decided?.within !== true || decided.grantId === undefined) return current;
  return { ...current, used: { ...current.used, [decided.grantId]: (current.used[decided.grantId] ?? 0) + 1 } };
}
