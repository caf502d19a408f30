// run-tools.ts, a call held behind a parked call it conflicts with, at resume: written against
// survivors of reports/mutation/runtime.md (issue 17) at run-tools.ts :259 and :263, each
// applied by hand.
import { createMemoryJournal } from "@yoke/journal";
import type { YokeEventDraft } from "@yoke/protocol";
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
  it("another writer's call never authorized, behind a parked call it conflicts with, waits too, and runs after it", async () => {
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
    const [payTen, payTwenty] = parked.state.actions;
    expect([payTen?.status.state, payTwenty?.status.state]).toEqual(["awaiting_approval", "authorized"]);
    // The same journal as another writer leaves it: the held call validated, its authorization never journaled.
    const drafts = (await readAll(first.journal, parked.runId))
      .filter((event) => !(event.type === "action.authorized" && (event.data as { actionId: string }).actionId === payTwenty?.actionId))
      .map(({ type, at, causationId, data }) => ({ type, at, causationId, data }) as YokeEventDraft);
    const journal = createMemoryJournal();
    await journal.append({ tenantId: TENANT, runId: parked.runId }, 0, drafts);

    const policy = functionEngine(() => ["allow", "anything"]);
    const second = policyRig([say("done")], { policy, tools: [pay.tool], journal });
    const waiting = await second.harness.resume(parked.runId);
    expect(waiting.waiting?.approvals.map((approval) => approval.actionId)).toEqual([payTen?.actionId]);
    expect(waiting.state.actions.map((action) => action.status.state)).toEqual(["awaiting_approval", "validated"]);
    expect(pay.calls).toEqual([]);
    expect(policy.tuples).toEqual([]);
    await second.harness.approve(parked.runId, waiting.waiting!.approvals[0]!.approvalId, { approver: "ops@example.com" });
    expect((await second.harness.resume(parked.runId)).outcome?.status).toBe("completed");
    expect(pay.calls.map((call) => call.amount)).toEqual([10, 20]);
  });
});
