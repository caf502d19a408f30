import { describe, expect, it } from "vitest";
import { checkApprovalBinding, type ApprovalBinding } from "./approvals.js";
import { YokeError } from "./errors.js";
import { GENESIS_HASH } from "./events.js";
import { reduceRun } from "./run-state.js";
import { awaitingApprovals } from "./run-state-approvals.js";
import { eventsOf, toolUse } from "./__fixtures__/events-of.js";

const binding: ApprovalBinding = {
  actionDigest: "a".repeat(64),
  toolRevision: "b".repeat(64),
  resourceRevision: "rev_7",
  policyRevision: "c".repeat(64),
  tenantId: "tenant_a",
  principalId: "user_1",
  expiresAt: 1_000,
};
const policy = { effect: "require_approval", ruleId: "payments-need-approval", policyRevision: "c".repeat(64), reason: "a payment" };

const parked = [
  {
    type: "run.started",
    data: {
      sessionId: "session_1",
      task: "pay the bill",
      tools: [],
      principal: { id: "user_1", authenticated: true, scopes: ["banking.pay"] },
      limits: { maxTurns: 3 },
      release: { runtime: "test", eventSchemaVersion: 1 },
    },
  },
  { type: "turn.started", data: { turnId: "turn_1", index: 1 } },
  { type: "model.requested", data: { turnId: "turn_1", requestHash: GENESIS_HASH, messageCount: 1 } },
  { type: "model.responded", data: { turnId: "turn_1", response: toolUse(["call_1", "pay"]), latencyMs: 0 } },
  {
    type: "action.approval_requested",
    data: {
      turnId: "turn_1",
      toolCallId: "call_1",
      toolName: "pay",
      actionId: "action_1",
      input: {},
      sideEffect: "irreversible",
      approvalId: "approval_1",
      policy,
      provenance: [],
      binding,
    },
  },
];
const granted = { type: "approval.granted", data: { actionId: "action_1", approvalId: "approval_1", approver: "ops_1", binding } };
const authorized = { type: "action.authorized", data: { actionId: "action_1", decision: "allow", rule: "payments-need-approval", approvalId: "approval_1" } };

const failure = {
  status: "error",
  content: [{ type: "text", text: "TOOL_TIMEOUT: slow" }],
  error: { code: "TOOL_TIMEOUT", message: "slow" },
  timing: { startedAt: 0, endedAt: 0, durationMs: 0 },
};

function refusal(drafts: { type: string; data: Record<string, unknown> }[]): unknown {
  try {
    reduceRun(eventsOf(drafts));
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("the fold of approvals", () => {
  it("parks the action: awaiting_approval, listed by awaitingApprovals, with the run's principal", () => {
    const state = reduceRun(eventsOf(parked));
    expect(state.phase).toBe("tools_pending");
    expect(state.principal).toEqual({ id: "user_1", authenticated: true, scopes: ["banking.pay"] });
    expect(state.actions[0]!.status.state).toBe("awaiting_approval");
    expect(awaitingApprovals(state)).toEqual([
      { approvalId: "approval_1", actionId: "action_1", status: "requested", binding, requestExpiresAt: binding.expiresAt },
    ]);
  });

  it("a granted approval authorizes the action; it no longer waits", () => {
    const state = reduceRun(eventsOf([...parked, granted, authorized]));
    expect(state.actions[0]!.status.state).toBe("authorized");
    expect(state.approvals.get("approval_1")).toMatchObject({ status: "granted", approver: "ops_1", requestExpiresAt: binding.expiresAt });
    expect(awaitingApprovals(state)).toEqual([]);
  });

  it("refuses an authorization naming an approval that was never granted", () => {
    expect(YokeError.hasCode(refusal([...parked, authorized]), "EVENT_INVALID")).toBe(true);
  });

  it("refuses a second decision on one approval, and a decision for another action", () => {
    const denied = { type: "approval.denied", data: { actionId: "action_1", approvalId: "approval_1", approver: "ops_1", reason: "no" } };
    expect(YokeError.hasCode(refusal([...parked, granted, denied]), "EVENT_INVALID")).toBe(true);
    const wrongAction = { ...granted, data: { ...granted.data, actionId: "action_9" } };
    expect(YokeError.hasCode(refusal([...parked, wrongAction]), "EVENT_INVALID")).toBe(true);
  });

  it("a voided approval leaves the action parked until the runtime fails it", () => {
    const voided = {
      type: "approval.voided",
      data: { actionId: "action_1", approvalId: "approval_1", code: "APPROVAL_EXPIRED", fields: ["expiresAt"], reason: "expired" },
    };
    const state = reduceRun(eventsOf([...parked, granted, voided]));
    expect(state.approvals.get("approval_1")).toMatchObject({ status: "voided", code: "APPROVAL_EXPIRED", reason: "expired" });
    expect(awaitingApprovals(state)).toEqual([]);
  });
});

describe("checkApprovalBinding", () => {
  it("holds for the same binding before its expiry, expires at it", () => {
    expect(checkApprovalBinding(binding, { ...binding }, 999)).toEqual({ ok: true });
    expect(checkApprovalBinding(binding, { ...binding }, 1_000)).toMatchObject({ ok: false, code: "APPROVAL_EXPIRED" });
  });

  it.each([
    ["actionDigest", "d".repeat(64)],
    ["toolRevision", "e".repeat(64)],
    ["resourceRevision", null],
    ["policyRevision", "f".repeat(64)],
    ["tenantId", "tenant_b"],
    ["principalId", "user_2"],
    ["expiresAt", 2_000],
  ] as const)("a changed %s voids it", (field, value) => {
    expect(checkApprovalBinding(binding, { ...binding, [field]: value }, 0)).toMatchObject({ ok: false, code: "APPROVAL_INVALID", fields: [field] });
  });

  it("folds what each attempt was authorized under: the request's decision, the approval, then a later lease's decision (issue 33)", () => {
    expect(reduceRun(eventsOf(parked)).actions[0]!.authority).toEqual({ rule: "payments-need-approval", policy });
    const approved = reduceRun(eventsOf([...parked, granted, authorized])).actions[0]!;
    expect(approved.authority).toEqual({ rule: "payments-need-approval", policy, approvalId: "approval_1" });
    const later = { ...policy, ruleId: "payments-need-approval-v2", policyRevision: "d".repeat(64) };
    const attempt = [
      { type: "action.leased", data: { actionId: "action_1", attemptId: "attempt_1", attempt: 1, deadlineAt: 10 } },
      { type: "action.executing", data: { actionId: "action_1", attemptId: "attempt_1" } },
      { type: "action.failed", data: { actionId: "action_1", attemptId: "attempt_1", dispatched: true, retryable: true, retrying: true, result: failure } },
      { type: "action.leased", data: { actionId: "action_1", attemptId: "attempt_2", attempt: 2, deadlineAt: 10, rule: "approval", policy: later } },
    ];
    const folded = reduceRun(eventsOf([...parked, granted, authorized, ...attempt])).actions[0]!;
    // A lease without a decision (a run without an engine) changes nothing; one with a decision replaces it and keeps the approval.
    expect(folded.authority).toEqual({ rule: "approval", policy: later, approvalId: "approval_1" });
  });
});
