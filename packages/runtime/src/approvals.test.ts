import { YokeError, parseYokeEvent, type JournalV1, type Message, type ToolResultPart, type YokeEvent } from "@yoke/protocol";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { TENANT, instantSleep, readAll, recordingJournal } from "./__fixtures__/harness-fixtures.js";
import { FRIEND_IBAN, POLICY_V2, functionEngine, ledger, manualClock, noteTool, payTool, policyRig } from "./__fixtures__/policy-fixtures.js";
import { createHarness } from "./harness.js";

async function events(journal: JournalV1, runId: string): Promise<YokeEvent[]> {
  return (await readAll(journal, runId)).map(parseYokeEvent);
}

function lastToolResults(messages: readonly Message[]): ToolResultPart[] {
  const tool = messages.filter((message) => message.role === "tool").at(-1);
  return tool?.role === "tool" ? tool.content : [];
}

/** The first call it decides needs a person; every later one is allowed. */
function firstNeedsApproval() {
  let first = true;
  return functionEngine(() => {
    if (!first) return ["allow", "anything-else"];
    first = false;
    return ["require_approval", "payments-need-a-person"];
  });
}

const task = `Pay my friend ${FRIEND_IBAN}`;

async function rejects(promise: Promise<unknown>): Promise<YokeError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!YokeError.isInstance(error)) throw new Error(`expected a YokeError, got ${String(error)}`);
  return error;
}

describe("approvals", () => {
  it("parks a require_approval call, runs the rest of the batch by the conflict rules, and runs the approved call once on resume", async () => {
    const pay = payTool();
    const note = noteTool();
    const engine = firstNeedsApproval();
    const journal = recordingJournal();
    const { harness, model } = policyRig(
      [
        callTools([
          { name: "pay", args: { to: FRIEND_IBAN, amount: 10 }, id: "c1" },
          { name: "note", args: { text: "paying" }, id: "c2" },
          { name: "pay", args: { to: FRIEND_IBAN, amount: 20 }, id: "c3" },
        ]),
        (request) => {
          expect(lastToolResults(request.messages).map((part) => [part.toolCallId, part.result.status])).toEqual([
            ["c1", "ok"],
            ["c2", "ok"],
            ["c3", "ok"],
          ]);
          return say("paid");
        },
      ],
      { policy: engine, tools: [pay.tool, note.tool], journal },
    );
    const parked = await harness.start(task);
    // The run waits: the parked payment has not run, the note (no conflict) has, the second payment (same ledger) waits.
    expect(parked.outcome).toBe(undefined);
    expect(parked.waiting?.kind).toBe("approval");
    expect(parked.waiting?.approvals).toHaveLength(1);
    expect(pay.calls).toEqual([]);
    expect(note.calls).toEqual(["paying"]);
    expect(parked.state.actions.map((action) => [action.toolCallId, action.status.state])).toEqual([
      ["c1", "awaiting_approval"],
      ["c2", "committed"],
      ["c3", "authorized"],
    ]);
    // Resuming before anyone decided changes nothing.
    const appendsBefore = journal.appends.length;
    expect((await harness.resume(parked.runId)).waiting?.approvals).toHaveLength(1);
    expect(journal.appends.length).toBe(appendsBefore);

    const approvalId = parked.waiting!.approvals[0]!.approvalId;
    const granted = await harness.approve(parked.runId, approvalId, { approver: "ops@example.com" });
    expect(granted).toMatchObject({ approvalId, status: "granted", approver: "ops@example.com" });
    const done = await harness.resume(parked.runId);
    model.assertConsumed();
    expect(done.outcome?.status).toBe("completed");
    expect(pay.calls.map((call) => call.amount)).toEqual([10, 20]);
    // Checked, authorized, leased and executing in one transaction before dispatch (with the held call's lease).
    expect(journal.appends).toContainEqual(["action.authorized", "action.leased", "action.executing", "action.leased", "action.executing"]);
    const authorized = (await events(journal, parked.runId)).find((event) => event.type === "action.authorized" && event.data.approvalId !== undefined);
    expect(authorized?.data).toMatchObject({ approvalId, rule: "approval", decision: "allow" });
  });

  it("a denied approval fails the action, not dispatched; the model is told; a held call then runs", async () => {
    const pay = payTool();
    const engine = firstNeedsApproval();
    const { harness, model, journal } = policyRig(
      [
        callTools([
          { name: "pay", args: { to: FRIEND_IBAN, amount: 10 } },
          { name: "pay", args: { to: FRIEND_IBAN, amount: 20 } },
        ]),
        (request) => {
          const [denied, ran] = lastToolResults(request.messages);
          expect(denied?.result.error?.code).toBe("APPROVAL_DENIED");
          expect(denied?.result.error?.message).toContain("ops@example.com denied the call to pay: unknown payee; it was not run");
          expect(ran?.result.status).toBe("ok");
          return say("ok");
        },
      ],
      { policy: engine, tools: [pay.tool] },
    );
    const parked = await harness.start(task);
    const approvalId = parked.waiting!.approvals[0]!.approvalId;
    expect(await harness.deny(parked.runId, approvalId, { approver: "ops@example.com", reason: "unknown payee" })).toMatchObject({ status: "denied" });
    const done = await harness.resume(parked.runId);
    model.assertConsumed();
    expect(done.outcome?.status).toBe("completed");
    expect(pay.calls.map((call) => call.amount)).toEqual([20]);
    const failed = (await events(journal, parked.runId)).find((event) => event.type === "action.failed");
    expect(failed?.data).toMatchObject({ dispatched: false, retryable: false, result: { error: { code: "APPROVAL_DENIED" } } });
  });

  it("a request nobody decides before it expires is voided (APPROVAL_EXPIRED) on resume", async () => {
    const pay = payTool();
    const clock = manualClock(1_000);
    const engine = functionEngine(() => ["require_approval", "need-a-person"]);
    const { harness, journal } = policyRig(
      [
        callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 } }]),
        (request) => {
          expect(lastToolResults(request.messages)[0]?.result.error?.code).toBe("APPROVAL_EXPIRED");
          return say("ok");
        },
      ],
      { policy: engine, tools: [pay.tool], clock, approvalTtlMs: 500 },
    );
    const parked = await harness.start(task);
    clock.set(1_499);
    expect((await harness.resume(parked.runId)).waiting).toBeDefined();
    clock.set(1_500);
    const done = await harness.resume(parked.runId);
    expect(done.outcome?.status).toBe("completed");
    expect(pay.calls).toEqual([]);
    const voided = (await events(journal, parked.runId)).find((event) => event.type === "approval.voided");
    expect(voided?.data).toMatchObject({ code: "APPROVAL_EXPIRED", fields: ["expiresAt"] });
  });

  it("refuses unknown or decided approvals (APPROVAL_NOT_FOUND), finished runs (RUN_FINISHED), and a resume without a policy (RELEASE_INCOMPATIBLE; CONFIG_INVALID under a rule that takes it)", async () => {
    const pay = payTool();
    const engine = functionEngine(() => ["require_approval", "need-a-person"]);
    const { harness, journal } = policyRig([callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 } }]), say("ok")], {
      policy: engine,
      tools: [pay.tool],
    });
    const parked = await harness.start(task);
    const approvalId = parked.waiting!.approvals[0]!.approvalId;
    expect((await rejects(harness.approve(parked.runId, "approval_nope", { approver: "a" }))).code).toBe("APPROVAL_NOT_FOUND");
    expect((await rejects(harness.approve("run_nope", approvalId, { approver: "a" }))).code).toBe("RUN_NOT_FOUND");
    expect((await rejects(harness.approve(parked.runId, approvalId, { approver: "" }))).code).toBe("CONFIG_INVALID");
    // Another tenant's harness on the same journal cannot see, approve or deny the run.
    const stranger = createHarness({ provider: createScriptedModel([]), tools: [pay.tool], journal, tenantId: "tenant_other", policy: engine });
    expect((await rejects(stranger.approve(parked.runId, approvalId, { approver: "a" }))).code).toBe("RUN_NOT_FOUND");
    expect((await rejects(stranger.deny(parked.runId, approvalId, { approver: "a", reason: "x" }))).code).toBe("RUN_NOT_FOUND");
    const plainOptions = { provider: createScriptedModel([]), tools: [pay.tool], journal, tenantId: parked.state.tenantId };
    expect((await rejects(createHarness(plainOptions).resume(parked.runId))).code).toBe("RELEASE_INCOMPATIBLE");
    const plain = createHarness({ ...plainOptions, releases: { compatible: () => true } });
    expect((await rejects(plain.resume(parked.runId))).code).toBe("CONFIG_INVALID");
    await harness.deny(parked.runId, approvalId, { approver: "a", reason: "no" });
    expect((await rejects(harness.approve(parked.runId, approvalId, { approver: "a" }))).code).toBe("APPROVAL_NOT_FOUND");
    expect((await rejects(harness.deny(parked.runId, approvalId, { approver: "a", reason: "again" }))).code).toBe("APPROVAL_NOT_FOUND");
    expect((await harness.resume(parked.runId)).outcome?.status).toBe("completed");
    expect((await rejects(harness.approve(parked.runId, approvalId, { approver: "a" }))).code).toBe("RUN_FINISHED");
  });

  it.each([
    ["the policy revision", "policyRevision"],
    ["the resource's base revision", "resourceRevision"],
  ] as const)("voids a granted approval when %s changed before dispatch (APPROVAL_INVALID), and the action does not run", async (_label, field) => {
    const pay = payTool();
    ledger.revision = "ledger@1";
    const first = functionEngine(() => ["require_approval", "need-a-person"]);
    const journal = recordingJournal();
    const steps = [
      callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 } }]),
      (request: { messages: readonly Message[] }) => {
        const [result] = lastToolResults(request.messages);
        expect(result?.result.error?.code).toBe("APPROVAL_INVALID");
        expect(result?.result.error?.message).toContain(`${field} changed`);
        return say("ok");
      },
    ];
    const { harness, model } = policyRig(steps, { policy: first, tools: [pay.tool], journal });
    const parked = await harness.start(task);
    await harness.approve(parked.runId, parked.waiting!.approvals[0]!.approvalId, { approver: "ops" });
    let resumer = harness;
    if (field === "policyRevision")
      resumer = policyRig([], { policy: functionEngine(() => ["allow", "x"], POLICY_V2), tools: [pay.tool], journal, provider: model }).harness;
    else ledger.revision = "ledger@2";
    try {
      const done = await resumer.resume(parked.runId);
      expect(done.outcome?.status).toBe("completed");
    } finally {
      ledger.revision = "ledger@1";
    }
    expect(pay.calls).toEqual([]);
    const voided = (await events(journal, parked.runId)).find((event) => event.type === "approval.voided");
    expect(voided?.data).toMatchObject({ code: "APPROVAL_INVALID", fields: [field] });
  });

  it("a granted call resumed by a harness with no policy is refused (RELEASE_INCOMPATIBLE, nothing journaled; under a rule that takes it, CONFIG_INVALID journaled as run.failed) before it runs; the harness with the policy runs it once", async () => {
    const pay = payTool();
    const journal = recordingJournal();
    const clock = manualClock();
    const { harness, model } = policyRig([callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 }, id: "c1" }]), say("paid")], {
      policy: firstNeedsApproval(),
      tools: [pay.tool],
      journal,
      clock,
    });
    const parked = await harness.start(task);
    await harness.approve(parked.runId, parked.waiting!.approvals[0]!.approvalId, { approver: "ops@example.com" });
    const appendsBefore = journal.appends.length;
    const bareOptions = { provider: createScriptedModel([]), tenantId: TENANT, tools: [pay.tool], journal, clock, sleep: instantSleep };
    // The run pinned a policy revision; a release without a policy is not the run's by default.
    const unpinned = await rejects(createHarness(bareOptions).resume(parked.runId));
    expect(unpinned.code).toBe("RELEASE_INCOMPATIBLE");
    expect((unpinned.details as { differences: { field: string }[] }).differences.map((difference) => difference.field)).toEqual(["policy"]);
    expect(journal.appends.length).toBe(appendsBefore);
    const bare = createHarness({ ...bareOptions, releases: { compatible: () => true } });
    const refused = await rejects(bare.resume(parked.runId));
    expect(refused.code).toBe("CONFIG_INVALID");
    expect(refused.details).toMatchObject({ option: "policy" });
    // Its journaled consequence is the run.failed that says why (after the release change the rule took); nothing was dispatched.
    expect(journal.appends.slice(appendsBefore)).toEqual([["release.changed"], ["run.failed"]]);
    const failed = (await events(journal, parked.runId)).findLast((event) => event.type === "run.failed");
    expect(failed?.data).toMatchObject({ code: "CONFIG_INVALID" });
    expect(pay.calls).toEqual([]);
    // Nothing was lost: the harness with the policy still runs the approved call, once.
    const done = await harness.resume(parked.runId);
    model.assertConsumed();
    expect(done.outcome).toEqual({ status: "completed" });
    expect(pay.calls).toHaveLength(1);
  });
});
