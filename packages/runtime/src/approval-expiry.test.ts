import { YokeError, parseYokeEvent, type JournalV1, type Message, type ToolResultPart, type YokeEvent } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { readAll, recordingJournal } from "./__fixtures__/harness-fixtures.js";
import { FRIEND_IBAN, functionEngine, manualClock, payTool, policyRig } from "./__fixtures__/policy-fixtures.js";

const HOUR = 3_600_000;
const WEEK = 7 * 24 * HOUR;
const task = `Pay my friend ${FRIEND_IBAN}`;

async function events(journal: JournalV1, runId: string): Promise<YokeEvent[]> {
  return (await readAll(journal, runId)).map(parseYokeEvent);
}

function lastToolResults(messages: readonly Message[]): ToolResultPart[] {
  const tool = messages.filter((message) => message.role === "tool").at(-1);
  return tool?.role === "tool" ? tool.content : [];
}

async function rejects(promise: Promise<unknown>): Promise<YokeError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!YokeError.isInstance(error)) throw new Error(`expected a YokeError, got ${String(error)}`);
  return error;
}

describe("approvals expire", () => {
  it("an approval given a week after its request expired is refused (APPROVAL_EXPIRED), journaled, and the tool never runs; asking again parks a fresh request", async () => {
    const pay = payTool();
    const clock = manualClock(1_000);
    const engine = functionEngine(() => ["require_approval", "payments-need-a-person"]);
    const { harness, journal, model } = policyRig(
      [
        callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 } }]),
        (request) => {
          const [result] = lastToolResults(request.messages);
          expect(result?.result.error?.code).toBe("APPROVAL_EXPIRED");
          // The model is told it may ask again: the same call asks a person again, with a fresh request.
          return callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 } }]);
        },
      ],
      { policy: engine, tools: [pay.tool], clock, approvalTtlMs: HOUR },
    );
    const parked = await harness.start(task);
    const request = parked.waiting!.approvals[0]!;
    expect(request.binding.expiresAt).toBe(1_000 + HOUR);
    clock.set(1_000 + WEEK);
    const refused = await rejects(harness.approve(parked.runId, request.approvalId, { approver: "ops@example.com" }));
    expect(refused.code).toBe("APPROVAL_EXPIRED");
    expect(refused.details).toMatchObject({ approvalId: request.approvalId, expiresAt: 1_000 + HOUR, now: 1_000 + WEEK });
    // The refusal is journaled: the request is voided, naming who came too late and when.
    const voided = (await events(journal, parked.runId)).filter((event) => event.type === "approval.voided");
    expect(voided.map((event) => event.data)).toEqual([
      expect.objectContaining({
        approvalId: request.approvalId,
        code: "APPROVAL_EXPIRED",
        fields: ["expiresAt"],
        reason: expect.stringContaining("ops@example.com"),
      }),
    ]);
    expect((await harness.getState(parked.runId)).approvals.get(request.approvalId)?.status).toBe("voided");
    // No grant: approving it again is refused as well (nothing waits for it any more).
    expect((await rejects(harness.approve(parked.runId, request.approvalId, { approver: "ops@example.com" }))).code).toBe("APPROVAL_NOT_FOUND");
    expect((await events(journal, parked.runId)).some((event) => event.type === "approval.granted")).toBe(false);

    const again = await harness.resume(parked.runId);
    model.assertConsumed();
    expect(pay.calls).toEqual([]);
    const failed = (await events(journal, parked.runId)).find((event) => event.type === "action.failed");
    expect(failed?.data).toMatchObject({ dispatched: false, retryable: false, result: { error: { code: "APPROVAL_EXPIRED" } } });
    // The run waits again, on a fresh request that expires a TTL from now.
    expect(again.outcome).toBe(undefined);
    expect(again.waiting?.approvals).toHaveLength(1);
    expect(again.waiting?.approvals[0]?.approvalId).not.toBe(request.approvalId);
    expect(again.waiting?.approvals[0]?.binding.expiresAt).toBe(1_000 + WEEK + HOUR);
  });

  it("the boundary is the request's own expiry: granted one millisecond before it, refused at it", async () => {
    const rig = () => {
      const clock = manualClock(1_000);
      const engine = functionEngine(() => ["require_approval", "payments-need-a-person"]);
      const pay = payTool();
      const { harness } = policyRig([callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 } }])], {
        policy: engine,
        tools: [pay.tool],
        clock,
        approvalTtlMs: HOUR,
      });
      return { clock, harness };
    };
    const before = rig();
    const early = await before.harness.start(task);
    before.clock.set(early.waiting!.approvals[0]!.binding.expiresAt - 1);
    const granted = await before.harness.approve(early.runId, early.waiting!.approvals[0]!.approvalId, { approver: "ops" });
    expect(granted.status).toBe("granted");
    const at = rig();
    const late = await at.harness.start(task);
    at.clock.set(late.waiting!.approvals[0]!.binding.expiresAt);
    expect((await rejects(at.harness.approve(late.runId, late.waiting!.approvals[0]!.approvalId, { approver: "ops" }))).code).toBe("APPROVAL_EXPIRED");
  });

  it("a grant journaled after its request expired (an older writer's, or a forged one) is voided on resume; the tool never runs", async () => {
    const pay = payTool();
    const clock = manualClock(1_000);
    const engine = functionEngine(() => ["require_approval", "payments-need-a-person"]);
    const journal = recordingJournal();
    const { harness } = policyRig(
      [
        callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 } }]),
        (request) => {
          expect(lastToolResults(request.messages)[0]?.result.error?.code).toBe("APPROVAL_EXPIRED");
          return say("not paid");
        },
      ],
      { policy: engine, tools: [pay.tool], clock, approvalTtlMs: HOUR, journal },
    );
    const parked = await harness.start(task);
    const request = parked.waiting!.approvals[0]!;
    const late = 1_000 + WEEK;
    const head = await journal.head({ tenantId: parked.state.tenantId, runId: parked.runId });
    // What the runtime before issue 33 wrote: a grant a week late, with a fresh expiry.
    await journal.append({ tenantId: parked.state.tenantId, runId: parked.runId }, head!.length, [
      {
        type: "approval.granted",
        at: late,
        causationId: request.actionId,
        data: { actionId: request.actionId, approvalId: request.approvalId, approver: "ops", binding: { ...request.binding, expiresAt: late + HOUR } },
      },
    ]);
    clock.set(late + 1);
    const done = await harness.resume(parked.runId);
    expect(done.outcome?.status).toBe("completed");
    expect(pay.calls).toEqual([]);
    const voided = (await events(journal, parked.runId)).find((event) => event.type === "approval.voided");
    expect(voided?.data).toMatchObject({ code: "APPROVAL_EXPIRED", fields: ["expiresAt"] });
  });
});
