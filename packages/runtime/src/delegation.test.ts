// A run's delegation end to end with @yoke/policy's engine: pinned before the first model call,
// counted from the fold by admitted calls, seen by the policy on every tuple, pinned on resume.
import { ANY_MATCH, createPolicyEngine, loadPolicy } from "@yoke/policy";
import { parseYokeEvent, reduceRun, YokeError, type Delegation, type YokeEvent } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { readAll } from "./__fixtures__/harness-fixtures.js";
import { FRIEND_IBAN, functionEngine, inboxTool, payTool, policyRig } from "./__fixtures__/policy-fixtures.js";
import { globMatches } from "./delegation.js";
import type { DelegationPlanningInput } from "./delegation-types.js";

const ANY = ANY_MATCH;

/** Payments to a recipient the user named; reads of the inbox. */
function engine(payEffect: "allow" | "require_approval" = "allow") {
  return createPolicyEngine(
    loadPolicy(
      JSON.stringify({
        version: 1,
        id: "payments",
        rules: [
          {
            id: "pay-named",
            effect: payEffect,
            match: { ...ANY, tool: { names: ["pay"], revisions: "*", owners: "*" }, provenance: { roles: ["recipient"], origins: ["trusted"] } },
          },
        ],
      }),
    ),
  );
}

const payOnce: Delegation = { source: "application", grants: [{ grantId: "rent", tools: ["pay"], max: 1 }] };
const task = `Read my inbox, then pay my friend ${FRIEND_IBAN} 10`;

async function events(journal: Parameters<typeof readAll>[0], runId: string): Promise<YokeEvent[]> {
  return (await readAll(journal, runId)).map(parseYokeEvent);
}

function decidedOf(all: readonly YokeEvent[], type: "action.admitted" | "action.approval_requested") {
  return all.flatMap((event) => (event.type === type ? [event.data] : []));
}

describe("a run's delegation", () => {
  it("is journaled in the run's first transaction, before the first model call; a run without one journals none", async () => {
    const pay = payTool();
    const { harness, journal } = policyRig([say("done")], { policy: engine(), tools: [pay.tool] });
    const { runId } = await harness.start("pay nobody", { delegation: { grants: payOnce.grants } });
    const types = (await events(journal, runId)).map((event) => event.type);
    expect(types.indexOf("run.delegated")).toBeGreaterThan(types.indexOf("run.started"));
    expect(types.indexOf("run.delegated")).toBeLessThan(types.indexOf("model.requested"));
    const delegated = (await events(journal, runId)).find((event) => event.type === "run.delegated");
    expect(delegated?.data).toEqual({ delegation: payOnce });

    const plain = policyRig([say("done")], { policy: engine(), tools: [pay.tool] });
    const other = await plain.harness.start("pay nobody");
    const written = await readAll(plain.journal, other.runId);
    expect(written.map((event) => event.type)).not.toContain("run.delegated");
    expect(JSON.stringify(written)).not.toContain("delegation");
  });

  it.each([
    ["no grants list", { source: "application" }],
    ["a count of 0", { grants: [{ grantId: "rent", tools: ["pay"], max: 0 }] }],
    ["an empty tool list", { grants: [{ grantId: "rent", tools: [], max: 1 }] }],
    [
      "a repeated grant id",
      {
        grants: [
          { grantId: "a", tools: ["pay"], max: 1 },
          { grantId: "a", tools: ["note"], max: 1 },
        ],
      },
    ],
    ["an unknown member", { grants: [{ grantId: "a", tools: ["pay"], max: 1, amount: 10 }] }],
    ["too many grants", { grants: Array.from({ length: 65 }, (_, index) => ({ grantId: `g${index}`, tools: ["pay"], max: 1 })) }],
  ])("with %s is refused (CONFIG_INVALID) and nothing is journaled", async (_name, delegation) => {
    const { harness, journal } = policyRig([say("done")], { policy: engine(), tools: [payTool().tool] });
    const error = await harness.start("pay", { runId: "run_bad", delegation: delegation as never }).catch((caught: unknown) => caught);
    expect(YokeError.hasCode(error, "CONFIG_INVALID")).toBe(true);
    expect((error as YokeError).message).toContain("delegation");
    expect(await journal.head({ tenantId: "tenant_test", runId: "run_bad" })).toBeNull();
  });

  it("counts admitted calls: of two payments in one response under a grant of one, the second needs a person", async () => {
    const pay = payTool();
    const { harness, journal } = policyRig(
      [
        callTools([
          { name: "pay", args: { to: FRIEND_IBAN, amount: 10 } },
          { name: "pay", args: { to: FRIEND_IBAN, amount: 10 } },
        ]),
      ],
      { policy: engine(), tools: [pay.tool] },
    );
    const result = await harness.start(`Pay my friend ${FRIEND_IBAN} 10`, { delegation: payOnce });
    expect(pay.calls).toHaveLength(1);
    expect(result.waiting?.approvals).toHaveLength(1);
    const all = await events(journal, result.runId);
    expect(decidedOf(all, "action.admitted")[0]).toMatchObject({ rule: "pay-named", delegation: { within: true, grantId: "rent", used: 0, max: 1 } });
    const parked = decidedOf(all, "action.approval_requested")[0];
    expect(parked).toMatchObject({ policy: { ruleId: "delegation-default" }, delegation: { within: false, grantId: "rent", used: 1, max: 1 } });
    expect(parked?.policy?.reason).toContain('grant "rent" is spent: 1 of 1 used');
    expect(result.state.delegation?.used).toEqual({ rent: 1 });
  });

  it("within it, the user's payment after an untrusted read needs no person; an injected extra one finds the count spent", async () => {
    const pay = payTool();
    const { harness, journal } = policyRig(
      [
        callTools([{ name: "read_inbox", args: {} }]),
        callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 } }]),
        callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 100 } }]),
      ],
      { policy: engine(), tools: [pay.tool, inboxTool] },
    );
    const result = await harness.start(task, { delegation: payOnce });
    expect(pay.calls.map((call) => call.amount)).toEqual([10]);
    const all = await events(journal, result.runId);
    expect(decidedOf(all, "action.admitted").find((data) => data.toolName === "pay")).toMatchObject({
      rule: "pay-named",
      influence: { integrity: "untrusted" },
      delegation: { within: true, grantId: "rent" },
    });
    expect(decidedOf(all, "action.approval_requested")[0]).toMatchObject({ policy: { ruleId: "delegation-default" }, delegation: { within: false, used: 1 } });
  });

  it("a tool no grant names is outside it, even with trusted arguments; reads are decided as before", async () => {
    const pay = payTool();
    const { harness, journal } = policyRig([callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 } }])], { policy: engine(), tools: [pay.tool] });
    const result = await harness.start(`Pay my friend ${FRIEND_IBAN} 10`, { delegation: { grants: [{ grantId: "notes", tools: ["note*"], max: 3 }] } });
    expect(pay.calls).toEqual([]);
    expect(decidedOf(await events(journal, result.runId), "action.approval_requested")[0]).toMatchObject({
      policy: { ruleId: "delegation-default" },
      delegation: { within: false, used: 0, max: 0 },
    });
  });

  it("a call parked within its grant holds the count; a denial gives it back, an approval spends it", async () => {
    const pay = payTool();
    const steps = [callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 } }]), say("done")];
    const denied = policyRig(steps, { policy: engine("require_approval"), tools: [pay.tool] });
    const parked = await denied.harness.start(`Pay my friend ${FRIEND_IBAN} 10`, { delegation: payOnce });
    expect(parked.state.delegation).toMatchObject({ used: { rent: 1 }, parked: { [parked.state.actions[0]!.actionId]: "rent" } });
    await denied.harness.deny(parked.runId, parked.waiting!.approvals[0]!.approvalId, { approver: "ops", reason: "no" });
    expect((await denied.harness.getState(parked.runId)).delegation).toMatchObject({ used: { rent: 0 }, parked: {} });

    const approved = policyRig(steps, { policy: engine("require_approval"), tools: [pay.tool] });
    const waiting = await approved.harness.start(`Pay my friend ${FRIEND_IBAN} 10`, { delegation: payOnce });
    await approved.harness.approve(waiting.runId, waiting.waiting!.approvals[0]!.approvalId, { approver: "ops" });
    const done = await approved.harness.resume(waiting.runId);
    expect(done.outcome?.status).toBe("completed");
    expect(done.state.delegation).toMatchObject({ used: { rent: 1 }, parked: {} });
    // The fold of the journal alone counts the same: a resumed process counts what this one did.
    expect(reduceRun(await readAll(approved.journal, waiting.runId)).delegation).toEqual(done.state.delegation);
  });

  it("a resumed run counts from the journal what another process spent: its first payment spent the grant, the second asks a person", async () => {
    const pay = payTool();
    const first = policyRig([callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 } }])], { policy: engine(), tools: [pay.tool] });
    // The first process's model has nothing more to say after the payment: the run stops there, failed, to be resumed.
    const stopped = await first.harness
      .start(`Pay my friend ${FRIEND_IBAN} 10`, { runId: "run_resumed", delegation: payOnce })
      .catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(YokeError);
    expect(pay.calls).toHaveLength(1);
    const second = policyRig([callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 100 } }])], {
      policy: engine(),
      tools: [pay.tool],
      journal: first.journal,
    });
    const resumed = await second.harness.resume("run_resumed");
    expect(pay.calls).toHaveLength(1);
    expect(resumed.waiting?.approvals).toHaveLength(1);
    expect(decidedOf(await events(first.journal, "run_resumed"), "action.approval_requested")[0]).toMatchObject({
      policy: { ruleId: "delegation-default" },
      delegation: { within: false, grantId: "rent", used: 1, max: 1 },
    });
  });

  it("is pinned: a resume uses the journaled one; a different one, or one for a run that had none, is DELEGATION_CHANGED", async () => {
    const pay = payTool();
    const { harness, journal } = policyRig([callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 } }]), say("done")], {
      policy: engine("require_approval"),
      tools: [pay.tool],
    });
    const parked = await harness.start(`Pay my friend ${FRIEND_IBAN} 10`, { delegation: payOnce });
    const before = (await readAll(journal, parked.runId)).length;
    const wider = { grants: [{ grantId: "rent", tools: ["pay"], max: 5 }] };
    const error = await harness.resume(parked.runId, { delegation: wider }).catch((caught: unknown) => caught);
    expect(YokeError.hasCode(error, "DELEGATION_CHANGED")).toBe(true);
    expect((error as YokeError).details).toEqual({ tenantId: "tenant_test", runId: parked.runId });
    expect((await readAll(journal, parked.runId)).length).toBe(before);
    // The same one (its source defaulted as at start) is accepted.
    expect((await harness.resume(parked.runId, { delegation: { grants: payOnce.grants } })).waiting).toBeDefined();

    const plain = policyRig([say("done")], { policy: engine(), tools: [pay.tool] });
    const none = await plain.harness.startOrResume("hi", { runId: "run_plain" });
    expect(none.outcome?.status).toBe("completed");
    const late = await plain.harness.startOrResume("hi", { runId: "run_plain", delegation: payOnce }).catch((caught: unknown) => caught);
    expect(YokeError.hasCode(late, "DELEGATION_CHANGED")).toBe(true);
  });

  it("a planning step sees only the task and the tool declarations, once, before the first model call", async () => {
    const pay = payTool();
    const seen: DelegationPlanningInput[] = [];
    const { harness, journal, model } = policyRig([callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 } }]), say("done")], {
      policy: engine(),
      tools: [pay.tool, inboxTool],
      planDelegation: (input) => {
        seen.push(input);
        expect(model.calls).toHaveLength(0);
        return { grants: [{ grantId: "pay", tools: ["pay"], max: 1 }] };
      },
    });
    const result = await harness.start(`Pay my friend ${FRIEND_IBAN} 10`);
    expect(result.outcome?.status).toBe("completed");
    expect(pay.calls).toHaveLength(1);
    expect(seen).toHaveLength(1);
    expect(Object.keys(seen[0]!).sort()).toEqual(["task", "tools"]);
    expect(seen[0]!.task).toBe(`Pay my friend ${FRIEND_IBAN} 10`);
    expect(seen[0]!.tools.map((tool) => [tool.name, tool.sideEffect])).toEqual([
      ["pay", "irreversible"],
      ["read_inbox", "none"],
    ]);
    const delegated = (await events(journal, result.runId)).find((event) => event.type === "run.delegated");
    expect(delegated?.data).toEqual({ delegation: { source: "planner", grants: [{ grantId: "pay", tools: ["pay"], max: 1 }] } });
    // A resume never plans again.
    await harness.resume(result.runId);
    expect(seen).toHaveLength(1);
  });

  it("a planner's malformed delegation is CONFIG_INVALID naming planDelegation; one that returns none leaves the run without", async () => {
    const bad = policyRig([say("done")], {
      policy: engine(),
      tools: [payTool().tool],
      planDelegation: () => ({ grants: [{ grantId: "", tools: ["pay"], max: 1 }] }),
    });
    const error = await bad.harness.start("pay").catch((caught: unknown) => caught);
    expect(YokeError.hasCode(error, "CONFIG_INVALID")).toBe(true);
    expect((error as YokeError).message).toContain("planDelegation");
    const none = policyRig([say("done")], { policy: engine(), tools: [payTool().tool], planDelegation: () => undefined });
    const result = await none.harness.start("hello");
    expect(result.state.delegation).toBeUndefined();
  });

  it("every tuple the engine sees carries the standing; a retried attempt is decided on the standing it was admitted with", async () => {
    const recorded = functionEngine(() => ["allow", "ok"]);
    const pay = payTool();
    const { harness } = policyRig([callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 } }]), say("done")], { policy: recorded, tools: [pay.tool] });
    await harness.start("pay", { delegation: payOnce });
    expect(recorded.tuples.map((tuple) => tuple.delegation)).toEqual([{ within: true, grantId: "rent", used: 0, max: 1 }]);

    // Attempt 2 of an admitted action holds the count attempt 1 took: never charged again, never found spent by itself.
    const attempts: number[] = [];
    const sync = defineTool({
      name: "sync",
      description: "Syncs a key.",
      input: z.object({ key: z.string() }),
      sideEffect: "idempotent",
      maxAttempts: 2,
      async execute({ key }, context) {
        attempts.push(context.attempt);
        if (context.attempt === 1) throw new YokeError("TOOL_TIMEOUT", "the backend was slow", { retryable: true });
        return `synced ${key}`;
      },
    });
    const retried = functionEngine(() => ["allow", "ok"]);
    const rigged = policyRig([callTools([{ name: "sync", args: { key: "k" } }]), say("done")], { policy: retried, tools: [sync] });
    const result = await rigged.harness.start("sync k", { delegation: { grants: [{ grantId: "sync", tools: ["sync"], max: 1 }] } });
    expect(attempts).toEqual([1, 2]);
    expect(result.outcome?.status).toBe("completed");
    expect(retried.tuples.map((tuple) => tuple.delegation)).toEqual([
      { within: true, grantId: "sync", used: 0, max: 1 },
      { within: true, grantId: "sync", used: 0, max: 1 },
    ]);
    expect(result.state.delegation?.used).toEqual({ sync: 1 });
  });
});

describe("globMatches", () => {
  it.each([
    ["pay", "pay", true],
    ["pay", "payx", false],
    ["send_*", "send_money", true],
    ["*_email", "send_email", true],
    ["*", "", true],
    ["a*b*c", "abc", true],
    ["a*b*c", "acb", false],
    ["ab*ba", "aba", false],
  ])("%s against %s: %s", (pattern, value, expected) => {
    expect(globMatches(pattern, value)).toBe(expected);
  });
});
