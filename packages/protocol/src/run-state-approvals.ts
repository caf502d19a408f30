import type { ApprovalRecord } from "./approvals.js";
import type { YokeEvent } from "./events.js";
import { invalid } from "./fold-invalid.js";
import type { MutableRunState, RunState } from "./run-state-types.js";

/*
 * The fold's part for approvals: `action.approval_requested` opens a request (the action
 * itself moves through the action machine in run-state.ts); a request is granted, denied or
 * voided once; a granted approval may still be voided (checked again before dispatch). The
 * map is replaced, never mutated, so a snapshot taken earlier keeps what it saw.
 */

type ApprovalEvent = Extract<YokeEvent, { type: "action.approval_requested" | "approval.granted" | "approval.denied" | "approval.voided" }>;

/** Folds the approval side of `action.approval_requested`, `approval.granted`, `approval.denied` and `approval.voided`. */
export function applyApprovalEvent(state: MutableRunState, event: ApprovalEvent): void {
  const approvals = new Map(state.approvals);
  const { approvalId, actionId } = event.data;
  const current = approvals.get(approvalId);
  if (event.type === "action.approval_requested") {
    if (current !== undefined) throw invalid(event, `approval ${approvalId} was already requested`);
    approvals.set(approvalId, { approvalId, actionId, status: "requested", binding: event.data.binding, requestExpiresAt: event.data.binding.expiresAt });
    state.approvals = approvals;
    return;
  }
  if (current === undefined) throw invalid(event, `${event.type} for unknown approval ${approvalId}`);
  if (current.actionId !== actionId) throw invalid(event, `${event.type} names action ${actionId}; approval ${approvalId} is for ${current.actionId}`);
  const action = state.actions.find((record) => record.actionId === actionId);
  if (action?.status.state !== "awaiting_approval") throw invalid(event, `${event.type} for action ${actionId}, which is not awaiting approval`);
  let next: ApprovalRecord;
  switch (event.type) {
    case "approval.granted":
      if (current.status !== "requested") throw invalid(event, `approval ${approvalId} is ${current.status}, not requested`);
      next = { ...current, status: "granted", binding: event.data.binding, approver: event.data.approver, decidedAt: event.at };
      break;
    case "approval.denied":
      if (current.status !== "requested") throw invalid(event, `approval ${approvalId} is ${current.status}, not requested`);
      next = { ...current, status: "denied", approver: event.data.approver, reason: event.data.reason, decidedAt: event.at };
      break;
    case "approval.voided":
      if (current.status !== "requested" && current.status !== "granted") throw invalid(event, `approval ${approvalId} is ${current.status}`);
      next = { ...current, status: "voided", reason: event.data.reason, code: event.data.code, decidedAt: event.at };
      break;
  }
  approvals.set(approvalId, next);
  state.approvals = approvals;
}

/**
 * The approval requests a run waits on: requested, not yet decided, for an action still
 * parked. A run whose pending calls include one of these waits for a person
 * (`harness.approve` / `harness.deny`).
 *
 * @example
 * ```ts
 * for (const request of awaitingApprovals(await harness.getState(runId))) console.log(request.approvalId, request.actionId);
 * ```
 */
export function awaitingApprovals(state: RunState): ApprovalRecord[] {
  const parked = new Set(state.actions.filter((action) => action.status.state === "awaiting_approval").map((action) => action.actionId));
  return [...state.approvals.values()].filter((approval) => approval.status === "requested" && parked.has(approval.actionId));
}
