// run-tools.ts, a call held behind a parked call it conflicts with, at resume: written against
// survivors of reports/mutation/runtime.md (issue 17) at run-tools.ts :259 and :263, each
// applied by hand.
// Equivalent mutants (no test can tell them apart from the code; kept here, not in the code):
// - recover-calls.ts, dropping `!context.signal?.aborted` before the blocker test: with the signal aborted settleParked pushes no blocker; the test says when holding is meant.
import { createMemoryJournal } from "@yoke/journal";
import { parseYokeEvent, type YokeEvent, type YokeEventDraft } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TENANT, keyedTool, readAll } from "../__fixtures__/harness-fixtures.js";
import { defineTool } from "../define-tool.js";
import { FRIEND_IBAN, functionEngine, noteTool, payTool, policyRig } from "../__fixtures__/policy-fixtures.js";

/** The first call needs a person; every later one is allowed. */
function firstNeedsApproval() {
  let first = true;
  return functionEngine(() => {
    if (!first) return ["allow", "anything-else"];
    first = false;
    return ["require_approval", "payments-need-a-person"];
  });
}

describe("a call held behind a parked call", () => {
  it("a resume with the run's signal aborted: the held call is not kept waiting, the run ends cancelled", async () => {
    const pay = payTool();
    const note = noteTool();
    const { harness } = policyRig(
      [
        callTools([
          { name: "pay", args: { to: FRIEND_IBAN, amount: 10 }, id: "c1" },
          { name: "pay", args: { to: FRIEND_IBAN, amount: 20 }, id: "c2" },
        ]),
        say("never asked"),
      ],
      { policy: firstNeedsApproval(), tools: [pay.tool, note.tool] },
    );
    const parked = await harness.start("t");
    expect(parked.state.actions.map((action) => action.status.state)).toEqual(["awaiting_approval", "authorized"]);
    const controller = new AbortController();
    controller.abort("operator stop");
    const done = await harness.resume(parked.runId, { signal: controller.signal });
    // Written for :259 (`authorized && !aborted` as `||` or as true); it does not kill them: with the signal aborted,
    // the parked call is settled first and blocks nothing, so the held call is never tested against a blocker.
    expect(done.outcome).toEqual({ status: "cancelled", reason: "operator stop" });
    expect(done.waiting).toBeUndefined();
    expect(done.state.actions.map((action) => action.status.state)).toEqual(["failed", "failed"]);
    expect(pay.calls).toEqual([]);
  });

  // :263 (a held call not added to the blockers): a call that conflicts only with a held call was recovered and ran
  // ahead of it, out of proposal order.
  it("a resume before the decision keeps a call held behind a held call too", async () => {
    const ran: string[] = [];
    const write = keyedTool("write", "idempotent", async ({ key }) => {
      ran.push(`write ${key}`);
      return "written";
    });
    const link = defineTool({
      name: "link",
      description: "Links two keys.",
      input: z.object({ from: z.string(), to: z.string() }),
      sideEffect: "idempotent",
      access: ({ from, to }) => ({ reads: [], writes: [from, to] }),
      execute: async ({ from, to }) => {
        ran.push(`link ${from} ${to}`);
        return "linked";
      },
    });
    const { harness } = policyRig(
      [
        callTools([
          { name: "write", args: { key: "a" }, id: "c1" },
          { name: "link", args: { from: "a", to: "b" }, id: "c2" },
          { name: "write", args: { key: "b" }, id: "c3" },
        ]),
        say("done"),
      ],
      { policy: firstNeedsApproval(), tools: [write, link] },
    );
    const parked = await harness.start("t");
    expect(parked.state.actions.map((action) => action.status.state)).toEqual(["awaiting_approval", "authorized", "authorized"]);
    expect(ran).toEqual([]);
    const again = await harness.resume(parked.runId);
    expect(again.waiting?.kind).toBe("approval");
    expect(ran).toEqual([]);
    await harness.approve(parked.runId, parked.waiting!.approvals[0]!.approvalId, { approver: "ops@example.com" });
    expect((await harness.resume(parked.runId)).outcome?.status).toBe("completed");
    expect(ran).toEqual(["write a", "link a b", "write b"]);
  });

  // A bug the survivors of :272 (`authorized && !aborted` as true, `||`, first operand true) pointed at: a call another
  // writer validated but never authorized, behind a call parked for approval that it conflicts with, was authorized at
  // resume and ran at once, ahead of the parked call (out of proposal order). It waits too, undecided until then.
  it.each([
    ["validated", ["action.authorized"]],
    ["proposed", ["action.validated", "action.authorized"]],
  ])("another writer's call left %s, behind a parked call it conflicts with, waits too, and runs after it", async (left, dropped) => {
    const { pay, runId, held, events } = await parkedWithHeldCall();
    // The same journal as another writer leaves it: the held call proposed or validated, never authorized.
    const journal = await journalOf(
      runId,
      events.filter((event) => !(dropped.includes(event.type) && (event.data as { actionId?: string }).actionId === held)),
    );
    const policy = functionEngine(() => ["allow", "anything"]);
    const second = policyRig([say("done")], { policy, tools: [pay.tool], journal });
    const waiting = await second.harness.resume(runId);
    expect(waiting.state.actions.map((action) => action.status.state)).toEqual(["awaiting_approval", left]);
    expect(pay.calls).toEqual([]);
    expect(policy.tuples).toEqual([]);
    await second.harness.approve(runId, waiting.waiting!.approvals[0]!.approvalId, { approver: "ops@example.com" });
    expect((await second.harness.resume(runId)).outcome?.status).toBe("completed");
    expect(pay.calls.map((call) => call.amount)).toEqual([10, 20]);
  });

  // :272 as true: an attempt another writer leased and started behind the parked call (it may have run) is not held
  // with the calls that wait; it is recovered (pay has no reconciler: the run escalates on it).
  it("another writer's attempt started behind a parked call it conflicts with: recovered, not held", async () => {
    const { pay, runId, held, events } = await parkedWithHeldCall();
    const attempt = { actionId: held, attemptId: "attempt_other" };
    const journal = await journalOf(runId, [
      ...events,
      { type: "action.leased", at: 0, causationId: held, data: { ...attempt, attempt: 1, deadlineAt: 60_000 } },
      { type: "action.executing", at: 0, causationId: held, data: attempt },
    ] as YokeEventDraft[]);
    const second = policyRig([say("never asked")], { policy: functionEngine(() => ["allow", "anything"]), tools: [pay.tool], journal });
    const done = await second.harness.resume(runId);
    expect(done.outcome?.status).toBe("escalated");
    expect(done.state.actions.find((action) => action.actionId === held)?.status.state).toBe("uncertain");
    expect(pay.calls).toEqual([]);
  });
});

/** A run whose first pay call is parked for approval and whose second (same ledger) is held behind it: its events as drafts. */
async function parkedWithHeldCall() {
  const pay = payTool();
  const first = policyRig(
    [
      callTools([
        { name: "pay", args: { to: FRIEND_IBAN, amount: 10 }, id: "c1" },
        { name: "pay", args: { to: FRIEND_IBAN, amount: 20 }, id: "c2" },
      ]),
    ],
    { policy: firstNeedsApproval(), tools: [pay.tool] },
  );
  const parked = await first.harness.start("t");
  expect(parked.state.actions.map((action) => action.status.state)).toEqual(["awaiting_approval", "authorized"]);
  const events = (await readAll(first.journal, parked.runId)).map(parseYokeEvent);
  return { pay, runId: parked.runId, held: parked.state.actions[1]!.actionId, events };
}

/** A fresh journal holding `events` of run `runId` as drafts, in one append. */
async function journalOf(runId: string, events: readonly (YokeEvent | YokeEventDraft)[]) {
  const journal = createMemoryJournal();
  await journal.append(
    { tenantId: TENANT, runId },
    0,
    events.map(({ type, at, causationId, data }) => ({ type, at, causationId, data }) as YokeEventDraft),
  );
  return journal;
}
