import { sequentialIdSource, steppingClock, type ApprovalBinding, type PolicyDecision } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { declaration } from "./__fixtures__/tools.js";
import { ActionBook } from "./action-book.js";
import { BatchTransaction } from "./batch-transaction.js";

const clock = steppingClock(0, 0);
const HASH = "a".repeat(64);
const tool = declaration({ name: "pay" });
const call = { turnId: "turn_1", toolCallId: "c1", tool, input: { to: "x" }, value: { to: "x" } };
const allow: PolicyDecision = { effect: "allow", ruleId: "payments-to-known", policyRevision: HASH, reason: "known payee" };
const provenance = [{ path: "/to", role: "recipient", value: "x", origin: "trusted" as const, sources: [{ itemId: "task", label: "user", trusted: true }] }];
const binding: ApprovalBinding = {
  actionDigest: HASH,
  toolRevision: HASH,
  resourceRevision: null,
  policyRevision: HASH,
  tenantId: "t",
  principalId: "p",
  expiresAt: 1000,
};

describe("BatchTransaction with a policy decision", () => {
  it("journals the rule, the decision and the provenance that admitted a call, not the default", () => {
    const batch = new BatchTransaction({ clock, ids: sequentialIdSource() });
    batch.admit(call, { rule: allow.ruleId, policy: allow, provenance });
    const [admitted] = batch.drain();
    expect(admitted?.data).toMatchObject({ decision: "allow", rule: "payments-to-known", policy: allow, provenance });
    const plain = new BatchTransaction({ clock, ids: sequentialIdSource() });
    plain.admit(call);
    const [legacy] = plain.drain();
    expect(legacy?.data).toMatchObject({ rule: "default" });
    expect(legacy?.data).not.toHaveProperty("policy");
  });

  it("parks a call for approval, then authorizes it under the approval with a lease and executing", () => {
    const batch = new BatchTransaction({ clock, ids: sequentialIdSource() });
    const require: PolicyDecision = { ...allow, effect: "require_approval", ruleId: "payments-need-approval" };
    const { actionId, approvalId } = batch.park(call, { policy: require, provenance, binding });
    expect(approvalId).toBe(`approval_${actionId.slice("action_".length)}`);
    const [parked] = batch.drain();
    expect(parked).toMatchObject({ type: "action.approval_requested", data: { actionId, approvalId, binding, policy: require } });
    const resumed = new BatchTransaction({
      clock,
      ids: sequentialIdSource(),
      records: [
        {
          actionId,
          turnId: "turn_1",
          toolCallId: "c1",
          toolName: "pay",
          input: {},
          sideEffect: "irreversible",
          status: { state: "awaiting_approval", attempt: 0, retryable: false },
          attemptId: undefined,
          receipt: undefined,
          committedSeq: undefined,
        },
      ],
    });
    const item = resumed.authorizeApproved(actionId, approvalId, { rule: require.ruleId, policy: require }, tool, call.value);
    expect(resumed.drain().map((draft) => draft.type)).toEqual(["action.authorized", "action.leased", "action.executing"]);
    expect(item).toMatchObject({ actionId, attempt: 1 });
  });

  it("refuses a parked action (not dispatched) and holds a call authorized but not leased", () => {
    const batch = new BatchTransaction({ clock, ids: sequentialIdSource() });
    const { actionId: parked } = batch.park(call, { approvalId: "approval_1", policy: { ...allow, effect: "require_approval" }, provenance, binding });
    batch.refuse(parked, "APPROVAL_DENIED", "denied by ops");
    const held = batch.hold({ ...call, toolCallId: "c2" }, { rule: "r" });
    const drafts = batch.drain();
    expect(drafts.map((draft) => draft.type)).toEqual([
      "action.approval_requested",
      "action.failed",
      "action.proposed",
      "action.validated",
      "action.authorized",
    ]);
    expect(drafts[1]?.data).toMatchObject({
      dispatched: false,
      retryable: false,
      retrying: false,
      result: { error: { code: "APPROVAL_DENIED", message: "denied by ops" } },
    });
    const book = ActionBook.fromRecords([]);
    for (const draft of drafts) expect(book.stage(draft).ok).toBe(true);
    expect(book.status(held)?.state).toBe("authorized");
  });
});
