// Issue 33, item 2: every attempt the scheduler leases outside the admission transaction (an
// in-process retry, a reconciled-then-retried attempt, an attempt another process leased, a held
// call) is decided by the caller's `authorizeAttempt` at that moment. A refusal is journaled on
// the attempt's own events: leased, then failed (not dispatched) with both decisions.
import {
  sequentialIdSource,
  steppingClock,
  type ActionRecord,
  type ActionStatus,
  type EventData,
  type PolicyDecision,
  type ToolResultEnvelope,
} from "@yoke/protocol";
import { transitionAction } from "@yoke/protocol/journal-utils";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { declaration } from "./__fixtures__/tools.js";
import type { ActionEventDraft } from "./action-book.js";
import { transitionInput } from "./action-book.js";
import { BatchTransaction, type AttemptAuthorization, type AttemptAuthorizationRequest } from "./batch-transaction.js";

const clock = steppingClock(0, 0);
const V1 = "1".repeat(64);
const V2 = "2".repeat(64);
const allowV1: PolicyDecision = { effect: "allow", ruleId: "sync-allowed", policyRevision: V1, reason: "syncs are fine" };
const allowV2: PolicyDecision = { effect: "allow", ruleId: "sync-still-allowed", policyRevision: V2, reason: "still fine" };
const denyV2: PolicyDecision = { effect: "deny", ruleId: "no-more-syncs", policyRevision: V2, reason: "syncs are frozen" };
const tool = declaration({ name: "sync", sideEffect: "idempotent", maxAttempts: 5 });
const call = { turnId: "turn_1", toolCallId: "c1", tool, input: { key: "k" }, value: { key: "k" } };
const timeout: ToolResultEnvelope = {
  status: "error",
  content: [{ type: "text", text: "TOOL_TIMEOUT: slow" }],
  error: { code: "TOOL_TIMEOUT", message: "slow" },
  timing: { startedAt: 0, endedAt: 0, durationMs: 0 },
};
const retryableFailure = { kind: "failed" as const, result: timeout, retryable: true, dispatched: true };

const refuseWith = (policy: PolicyDecision): AttemptAuthorization => ({
  kind: "refuse",
  code: "POLICY_CHANGED",
  message: `the policy now answers ${policy.effect}`,
  policy,
  previousPolicy: allowV1,
});

/** An authorizer that answers from a list and records what it was asked. */
function authorizer(answers: AttemptAuthorization[]) {
  const asked: AttemptAuthorizationRequest[] = [];
  return {
    asked,
    authorizeAttempt: async (request: AttemptAuthorizationRequest) => {
      asked.push(request);
      const answer = answers.shift();
      if (answer === undefined) throw new Error("asked more often than the test expected");
      return answer;
    },
  };
}

function record(status: ActionStatus, attemptId: string | undefined): ActionRecord {
  return {
    actionId: "action_1",
    turnId: "turn_1",
    toolCallId: "c1",
    toolName: "sync",
    input: { key: "k" },
    sideEffect: "idempotent",
    status,
    attemptId,
    receipt: undefined,
    committedSeq: undefined,
  };
}

describe("every attempt after admission is authorized at that moment", () => {
  it("an in-process retry whose decision changed is leased and refused, not dispatched, with both decisions", async () => {
    const auth = authorizer([refuseWith(denyV2)]);
    const batch = new BatchTransaction({ clock, ids: sequentialIdSource(), authorizeAttempt: auth.authorizeAttempt });
    const item = batch.admit(call, { rule: allowV1.ruleId, policy: allowV1 });
    batch.drain();
    const settlement = await batch.settle(item, retryableFailure);
    expect(settlement).toEqual({ kind: "done" });
    expect(auth.asked).toEqual([expect.objectContaining({ actionId: item.actionId, attempt: 2, tool })]);
    const drafts = batch.drain();
    expect(drafts.map((draft) => draft.type)).toEqual(["action.failed", "action.leased", "action.failed"]);
    const leased = drafts[1]!.data as EventData<"action.leased">;
    expect(leased).toMatchObject({ attempt: 2 });
    expect(leased).not.toHaveProperty("policy");
    expect(drafts[2]!.data).toMatchObject({
      attemptId: leased.attemptId,
      dispatched: false,
      retryable: false,
      retrying: false,
      policy: denyV2,
      previousPolicy: allowV1,
      result: { error: { code: "POLICY_CHANGED" } },
    });
  });

  it("an in-process retry still allowed carries the decision it runs under on its lease", async () => {
    const auth = authorizer([{ kind: "allow", rule: allowV2.ruleId, policy: allowV2 }]);
    const batch = new BatchTransaction({ clock, ids: sequentialIdSource(), authorizeAttempt: auth.authorizeAttempt });
    const item = batch.admit(call, { rule: allowV1.ruleId, policy: allowV1 });
    batch.drain();
    const settlement = await batch.settle(item, retryableFailure);
    expect(settlement.kind).toBe("retry");
    const drafts = batch.drain();
    expect(drafts.map((draft) => draft.type)).toEqual(["action.failed", "action.leased", "action.executing"]);
    expect(drafts[1]!.data).toMatchObject({ attempt: 2, rule: "sync-still-allowed", policy: allowV2 });
  });

  it("a reconciled-then-retried attempt (executing, left by a killed process) is asked, and refused", async () => {
    const auth = authorizer([refuseWith(denyV2)]);
    const batch = new BatchTransaction({
      clock,
      ids: sequentialIdSource(),
      records: [record({ state: "executing", attempt: 1, retryable: false }, "attempt_1")],
      authorizeAttempt: auth.authorizeAttempt,
    });
    const settlement = await batch.recover(record({ state: "executing", attempt: 1, retryable: false }, "attempt_1"), tool, { key: "k" });
    expect(settlement).toEqual({ kind: "done" });
    expect(auth.asked.map((request) => request.attempt)).toEqual([2]);
    const drafts = batch.drain();
    expect(drafts.map((draft) => draft.type)).toEqual(["action.uncertain", "action.reconciled", "action.leased", "action.failed"]);
    expect(drafts[3]!.data).toMatchObject({ dispatched: false, policy: denyV2, previousPolicy: allowV1, result: { error: { code: "POLICY_CHANGED" } } });
  });

  it("an attempt another process leased but never dispatched is asked before its executing, which carries the decision", async () => {
    const auth = authorizer([{ kind: "allow", rule: allowV2.ruleId, policy: allowV2 }]);
    const leased = record({ state: "leased", attempt: 2, retryable: false }, "attempt_2");
    const batch = new BatchTransaction({ clock, ids: sequentialIdSource(), records: [leased], authorizeAttempt: auth.authorizeAttempt });
    const settlement = await batch.recover(leased, tool, { key: "k" });
    expect(settlement.kind).toBe("retry");
    expect(auth.asked.map((request) => request.attempt)).toEqual([2]);
    const drafts = batch.drain();
    expect(drafts.map((draft) => draft.type)).toEqual(["action.executing"]);
    expect(drafts[0]!.data).toMatchObject({ attemptId: "attempt_2", rule: "sync-still-allowed", policy: allowV2 });

    const refused = new BatchTransaction({
      clock,
      ids: sequentialIdSource(),
      records: [leased],
      authorizeAttempt: authorizer([refuseWith(denyV2)]).authorizeAttempt,
    });
    expect(await refused.recover(leased, tool, { key: "k" })).toEqual({ kind: "done" });
    const [failed] = refused.drain();
    expect(failed).toMatchObject({ type: "action.failed", data: { attemptId: "attempt_2", dispatched: false, result: { error: { code: "POLICY_CHANGED" } } } });
  });

  it("a call decided just now by the caller (proposed by another writer) is not asked twice; admission and approvals are not asked", async () => {
    const auth = authorizer([]);
    const proposed = record({ state: "proposed", attempt: 0, retryable: false }, undefined);
    const batch = new BatchTransaction({ clock, ids: sequentialIdSource(), records: [proposed], authorizeAttempt: auth.authorizeAttempt });
    const settlement = await batch.recover(proposed, tool, { key: "k" }, { rule: allowV2.ruleId, policy: allowV2 });
    expect(settlement.kind).toBe("retry");
    batch.admit(call, { rule: allowV1.ruleId, policy: allowV1 });
    expect(auth.asked).toEqual([]);
  });

  it("property: an attempt is dispatched exactly when the authorizer allowed it, and every refusal is journaled, legal, with both decisions", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 0, maxLength: 6 }), async (answers) => {
        // The answer for attempt k (2 and on) is answers[k - 2]; past the list, allow.
        const asked: number[] = [];
        const authorizeAttempt = async (request: AttemptAuthorizationRequest): Promise<AttemptAuthorization> => {
          asked.push(request.attempt);
          return (answers[request.attempt - 2] ?? true) ? { kind: "allow", rule: allowV2.ruleId, policy: allowV2 } : refuseWith(denyV2);
        };
        const batch = new BatchTransaction({ clock, ids: sequentialIdSource(), authorizeAttempt });
        let item = batch.admit(call, { rule: allowV1.ruleId, policy: allowV1 });
        const journaled: ActionEventDraft[] = [...batch.drain()];
        let dispatched = 1;
        for (;;) {
          const settlement = await batch.settle(item, retryableFailure);
          journaled.push(...batch.drain());
          if (settlement.kind !== "retry") break;
          item = settlement.item;
          dispatched += 1;
        }
        const last = tool.maxAttempts!;
        const firstRefused = answers.slice(0, last - 1).indexOf(false);
        // Attempts 2.. are each asked once, until one is refused or none is left.
        const lastAsked = firstRefused === -1 ? last : firstRefused + 2;
        expect(asked).toEqual(Array.from({ length: lastAsked - 1 }, (_, index) => index + 2));
        expect(dispatched).toBe(firstRefused === -1 ? last : firstRefused + 1);
        const executing = journaled.filter((draft) => draft.type === "action.executing" || draft.type === "action.admitted");
        expect(executing).toHaveLength(dispatched);
        const refusals = journaled.filter((draft) => draft.type === "action.failed" && (draft.data as EventData<"action.failed">).policy !== undefined);
        expect(refusals).toHaveLength(firstRefused === -1 ? 0 : 1);
        for (const refusal of refusals) expect(refusal.data).toMatchObject({ dispatched: false, policy: denyV2, previousPolicy: allowV1 });
        // Every journaled transition is legal from the one before.
        let status: ActionStatus | undefined;
        for (const draft of journaled) {
          const next = transitionAction(status, transitionInput(draft));
          expect(next.ok).toBe(true);
          status = next.ok ? next.status : status;
        }
      }),
    );
  });
});
