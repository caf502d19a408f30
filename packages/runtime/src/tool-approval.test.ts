import { defineTool, parseYokeEvent, type JournalV1, type PolicyEffect, type YokeEvent } from "@yoke/protocol";
import { createMemoryJournal } from "@yoke/journal";
import { sequentialIdSource } from "@yoke/protocol";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TENANT, instantSleep, readAll } from "./__fixtures__/harness-fixtures.js";
import { FRIEND_IBAN, functionEngine, manualClock, noteTool, POLICY_V1 } from "./__fixtures__/policy-fixtures.js";
import { createHarness } from "./harness.js";
import type { HarnessOptions } from "./harness-types.js";
import { NO_POLICY_REVISION, TOOL_APPROVAL_RULE } from "./tool-approval.js";

async function events(journal: JournalV1, runId: string): Promise<YokeEvent[]> {
  return (await readAll(journal, runId)).map(parseYokeEvent);
}

/** Transfers money; asks a person as `needsApproval` says. Counts its runs and how often its rule was evaluated. */
function transferTool(needsApproval: boolean | ((input: { amount: number }) => boolean), description = "Send money.") {
  const runs: number[] = [];
  const asked: number[] = [];
  const tool = defineTool({
    name: "transfer",
    description,
    input: z.object({ to: z.string(), amount: z.number() }),
    sideEffect: "irreversible",
    access: () => ({ reads: [], writes: ["ledger"] }),
    needsApproval:
      typeof needsApproval === "boolean"
        ? needsApproval
        : (input) => {
            asked.push(input.amount);
            return needsApproval(input);
          },
    async execute({ amount }) {
      runs.push(amount);
      return `sent ${amount}`;
    },
  });
  return { tool, runs, asked };
}

function rigWith(steps: Parameters<typeof createScriptedModel>[0], options: Partial<HarnessOptions> & { journal?: JournalV1 }) {
  const model = createScriptedModel(steps);
  const journal = options.journal ?? createMemoryJournal();
  const harness = createHarness({
    provider: model,
    tenantId: TENANT,
    ids: sequentialIdSource(),
    sleep: instantSleep,
    clock: manualClock(),
    ...options,
    journal,
  });
  return { harness, model, journal };
}

const pay = (amount: number, id: string) => ({ name: "transfer", args: { to: FRIEND_IBAN, amount }, id });

describe("a tool's needsApproval, in a run without a policy", () => {
  it("parks every call of a needsApproval: true tool for a person (rule tool:needsApproval), holds a conflicting call, runs what does not conflict, and runs the approved call once", async () => {
    const transfer = transferTool(true);
    const note = noteTool();
    const { harness, model, journal } = rigWith(
      [callTools([pay(10, "c1"), { name: "note", args: { text: "paying" }, id: "c2" }, pay(20, "c3")]), say("done")],
      {
        tools: [transfer.tool, note.tool],
      },
    );
    const parked = await harness.start("pay");
    expect(parked.waiting?.kind).toBe("approval");
    expect(transfer.runs).toEqual([]);
    expect(note.calls).toEqual(["paying"]);
    expect(parked.state.actions.map((action) => [action.toolCallId, action.status.state])).toEqual([
      ["c1", "awaiting_approval"],
      ["c2", "committed"],
      ["c3", "awaiting_approval"],
    ]);
    const requested = (await events(journal, parked.runId)).filter((event) => event.type === "action.approval_requested");
    expect(requested).toHaveLength(2);
    for (const event of requested) {
      expect(event.data.policy).toMatchObject({ effect: "require_approval", ruleId: TOOL_APPROVAL_RULE, policyRevision: NO_POLICY_REVISION });
      expect(event.data.policy.reason).toContain("every call to transfer needs a person's approval");
      // The approval binds these arguments, this tool revision, the tenant and the principal.
      expect(event.data.binding).toMatchObject({ tenantId: TENANT, policyRevision: NO_POLICY_REVISION, resourceRevision: null });
      expect(event.data.binding.actionDigest).toMatch(/^[0-9a-f]{64}$/);
    }
    for (const approval of parked.waiting!.approvals) await harness.approve(parked.runId, approval.approvalId, { approver: "ops" });
    const done = await harness.resume(parked.runId);
    model.assertConsumed();
    expect(done.outcome?.status).toBe("completed");
    expect(transfer.runs).toEqual([10, 20]);
  });

  it("a function is evaluated once per call, at admission: small transfers run, a large one waits; its verdict is journaled, never asked again on resume", async () => {
    const transfer = transferTool(({ amount }) => amount > 100);
    const { harness, journal } = rigWith([callTools([pay(10, "c1"), pay(500, "c2")]), say("done")], { tools: [transfer.tool] });
    const parked = await harness.start("pay");
    expect(transfer.runs).toEqual([10]);
    expect(transfer.asked).toEqual([10, 500]);
    const all = await events(journal, parked.runId);
    expect(all.find((event) => event.type === "action.admitted")?.data).toMatchObject({ toolCallId: "c1", rule: "default" });
    expect(all.find((event) => event.type === "action.approval_requested")?.data).toMatchObject({
      toolCallId: "c2",
      policy: { ruleId: TOOL_APPROVAL_RULE, reason: expect.stringContaining("transfer needs a person's approval for these arguments") },
    });
    await harness.approve(parked.runId, parked.waiting!.approvals[0]!.approvalId, { approver: "ops" });
    expect((await harness.resume(parked.runId)).outcome?.status).toBe("completed");
    expect(transfer.runs).toEqual([10, 500]);
    expect(transfer.asked).toEqual([10, 500]);
  });

  it("an approval binds the tool revision: a resume with the tool changed voids it (APPROVAL_INVALID) and the call does not run", async () => {
    const journal = createMemoryJournal();
    const before = transferTool(true);
    const first = rigWith([callTools([pay(10, "c1")])], { tools: [before.tool], journal });
    const parked = await first.harness.start("pay");
    await first.harness.approve(parked.runId, parked.waiting!.approvals[0]!.approvalId, { approver: "ops" });
    const after = transferTool(true, "Send money, now to anyone.");
    const second = rigWith([say("ok")], { tools: [after.tool], journal });
    await second.harness.resume(parked.runId);
    expect(after.runs).toEqual([]);
    const voided = (await events(journal, parked.runId)).find((event) => event.type === "approval.voided");
    expect(voided?.data).toMatchObject({ code: "APPROVAL_INVALID" });
    expect(voided?.type === "approval.voided" && voided.data.fields).toContain("toolRevision");
  });

  it("a function that throws or answers no boolean refuses the call (POLICY_DENIED, rule tool:needsApproval); it never runs unasked", async () => {
    const throwing = transferTool(() => {
      throw new Error("limits service down");
    });
    const { harness, journal } = rigWith([callTools([pay(10, "c1")]), say("ok")], { tools: [throwing.tool] });
    const result = await harness.start("pay");
    expect(result.outcome?.status).toBe("completed");
    expect(throwing.runs).toEqual([]);
    const rejected = (await events(journal, result.runId)).find((event) => event.type === "tool.rejected");
    expect(rejected?.data).toMatchObject({ code: "POLICY_DENIED", policy: { effect: "deny", ruleId: TOOL_APPROVAL_RULE } });
    expect(rejected?.type === "tool.rejected" && rejected.data.policy?.reason).toContain("limits service down");
    const odd = transferTool((() => "yes") as never);
    const second = rigWith([callTools([pay(10, "c1")]), say("ok")], { tools: [odd.tool] });
    await second.harness.start("pay");
    expect(odd.runs).toEqual([]);
  });

  it("defineTool refuses a needsApproval that is neither a boolean nor a function (CONFIG_INVALID naming the tool)", () => {
    expect(() =>
      defineTool({ name: "t", description: "d", input: z.object({}), sideEffect: "none", needsApproval: "yes" as never, execute: async () => "" }),
    ).toThrowError(expect.objectContaining({ code: "CONFIG_INVALID", details: expect.objectContaining({ tool: "t", option: "needsApproval" }) }));
  });
});

describe("a tool's needsApproval with a policy: the stricter wins (deny > approval > allow)", () => {
  const cases: [PolicyEffect, boolean, PolicyEffect, string][] = [
    ["allow", false, "allow", "policy-rule"],
    ["allow", true, "require_approval", TOOL_APPROVAL_RULE],
    ["require_approval", false, "require_approval", "policy-rule"],
    ["require_approval", true, "require_approval", "policy-rule"],
    ["deny", false, "deny", "policy-rule"],
    ["deny", true, "deny", "policy-rule"],
  ];
  for (const [policy, asks, effect, rule] of cases) {
    it(`policy ${policy}, tool ${asks ? "asks" : "does not ask"} → ${effect} by rule ${rule}`, async () => {
      const transfer = transferTool(() => asks);
      const engine = functionEngine(() => [policy, "policy-rule"]);
      const { harness, journal } = rigWith([callTools([pay(10, "c1")]), say("ok")], { tools: [transfer.tool], policy: engine });
      const result = await harness.start("pay");
      const all = await events(journal, result.runId);
      const decided = all.find((event) => event.type === "action.admitted" || event.type === "action.approval_requested" || event.type === "tool.rejected");
      const journaled = decided?.type === "action.admitted" ? { effect: decided.data.decision, ruleId: decided.data.rule } : decided?.data.policy;
      expect(journaled).toMatchObject({ effect, ruleId: rule });
      expect(transfer.runs).toEqual(effect === "allow" ? [10] : []);
      expect(transfer.asked).toEqual([10]);
      if (effect === "require_approval") {
        expect(decided?.type === "action.approval_requested" && decided.data.binding.policyRevision).toBe(POLICY_V1);
        expect(result.waiting?.kind).toBe("approval");
        await harness.approve(result.runId, result.waiting!.approvals[0]!.approvalId, { approver: "ops" });
        expect((await harness.resume(result.runId)).outcome?.status).toBe("completed");
        expect(transfer.runs).toEqual([10]);
      }
    });
  }
});
