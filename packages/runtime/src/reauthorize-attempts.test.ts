// Issue 33, item 2: "the model already asked" is not an authorization cache. Every attempt's
// dispatch after admission (an in-process retry, the next attempt of a reconciled action, a held
// call) is decided under the policy in force at that moment; a changed decision refuses the
// attempt (POLICY_CHANGED), journaled with both decisions. tests/approvals does the crash case
// with a really killed process.
import { createMemoryJournal } from "@yoke/journal";
import {
  YokeError,
  parseYokeEvent,
  type JournalV1,
  type Message,
  type PolicyEffect,
  type PolicyEngineV1,
  type ToolResultPart,
  type YokeEvent,
} from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { SimulatedCrash, crashingJournal, readAll, recordingJournal, rejectionOf } from "./__fixtures__/harness-fixtures.js";
import { FRIEND_IBAN, POLICY_V1, POLICY_V2, functionEngine, inboxTool, noteTool, payTool, policyRig } from "./__fixtures__/policy-fixtures.js";
import { defineTool } from "./define-tool.js";

const RUN = "run_reauthorize";

async function events(journal: JournalV1, runId: string): Promise<YokeEvent[]> {
  return (await readAll(journal, runId)).map(parseYokeEvent);
}

function lastToolResults(messages: readonly Message[]): ToolResultPart[] {
  const tool = messages.filter((message) => message.role === "tool").at(-1);
  return tool?.role === "tool" ? tool.content : [];
}

/** A policy whose rules an operator swaps while the run goes on: revision and answer change together. */
function swappableEngine() {
  let current: { revision: string; effect: PolicyEffect; rule: string } = { revision: POLICY_V1, effect: "allow", rule: "syncs-allowed" };
  let asked = 0;
  const engine: PolicyEngineV1 = {
    specificationVersion: "v1",
    get revision() {
      return current.revision;
    },
    decide: () => {
      asked += 1;
      return { effect: current.effect, ruleId: current.rule, policyRevision: current.revision, reason: `${current.effect} by ${current.rule}` };
    },
  };
  return {
    engine,
    asked: () => asked,
    swap: (next: typeof current) => {
      current = next;
    },
  };
}

/** An idempotent sync whose first attempt fails retryably, after the operator swapped the policy (the handler does it, to land between the attempts). */
function flakySync(onFirstAttempt: () => void) {
  const attempts: number[] = [];
  const tool = defineTool({
    name: "sync",
    description: "Syncs a key.",
    input: z.object({ key: z.string() }),
    sideEffect: "idempotent",
    maxAttempts: 3,
    async execute({ key }, context) {
      attempts.push(context.attempt);
      if (context.attempt === 1) {
        onFirstAttempt();
        throw new YokeError("TOOL_TIMEOUT", "the backend was slow", { retryable: true });
      }
      return `synced ${key}`;
    },
  });
  return { tool, attempts };
}

describe("policy is asked again for every attempt", () => {
  it("an in-process retry is decided under the policy in force then: denied now, attempt 2 is not dispatched (POLICY_CHANGED, both revisions journaled)", async () => {
    const policy = swappableEngine();
    const sync = flakySync(() => policy.swap({ revision: POLICY_V2, effect: "deny", rule: "syncs-frozen" }));
    const { harness, journal, model } = policyRig(
      [
        callTools([{ name: "sync", args: { key: "k" } }]),
        (request) => {
          const [result] = lastToolResults(request.messages);
          expect(result?.result.error?.code).toBe("POLICY_CHANGED");
          expect(result?.result.error?.message).toContain("syncs-frozen");
          return say("stopped");
        },
      ],
      { policy: policy.engine, tools: [sync.tool] },
    );
    const done = await harness.start("sync k");
    model.assertConsumed();
    expect(done.outcome?.status).toBe("completed");
    expect(sync.attempts).toEqual([1]);
    expect(policy.asked()).toBe(2);
    const all = await events(journal, done.runId);
    const refused = all.find((event) => event.type === "action.failed" && event.data.policy !== undefined);
    expect(refused?.data).toMatchObject({
      dispatched: false,
      retryable: false,
      policy: { effect: "deny", ruleId: "syncs-frozen", policyRevision: POLICY_V2 },
      previousPolicy: { effect: "allow", ruleId: "syncs-allowed", policyRevision: POLICY_V1 },
      result: { error: { code: "POLICY_CHANGED" } },
    });
    // The refused attempt is named: leased (attempt 2), then failed; no executing for it.
    const attempt2 = all.find((event) => event.type === "action.leased" && event.data.attempt === 2);
    expect(attempt2?.type === "action.leased" && refused?.type === "action.failed" && refused.data.attemptId).toBe(
      attempt2?.type === "action.leased" && attempt2.data.attemptId,
    );
    expect(all.filter((event) => event.type === "action.executing")).toHaveLength(0);
  });

  it("an in-process retry still allowed runs, its lease carrying the decision asked then; no extra commit", async () => {
    const policy = swappableEngine();
    const sync = flakySync(() => policy.swap({ revision: POLICY_V2, effect: "allow", rule: "syncs-allowed-v2" }));
    const { harness, journal } = policyRig([callTools([{ name: "sync", args: { key: "k" } }]), say("synced")], {
      policy: policy.engine,
      tools: [sync.tool],
      journal: recordingJournal(),
    });
    const done = await harness.start("sync k");
    expect(done.outcome?.status).toBe("completed");
    expect(sync.attempts).toEqual([1, 2]);
    expect(policy.asked()).toBe(2);
    const leased = (await events(journal, done.runId)).find((event) => event.type === "action.leased");
    expect(leased?.data).toMatchObject({ attempt: 2, rule: "syncs-allowed-v2", policy: { effect: "allow", policyRevision: POLICY_V2 } });
    // The decision rides on the retry's own commit (the failed attempt with the next one's lease), as without a policy.
    expect((journal as ReturnType<typeof recordingJournal>).appends).toEqual([
      ["run.started", "turn.started", "context.compiled", "model.requested"],
      ["model.responded", "action.admitted"],
      ["action.failed", "action.leased", "action.executing"],
      ["action.committed", "turn.started", "context.compiled", "model.requested"],
      ["model.responded"],
      ["run.completed"],
    ]);
  });

  it("a reconciled-then-retried attempt after a crash is decided by the resuming process's policy: denied, it does not run again", async () => {
    const sync = noteTool();
    const inner = createMemoryJournal();
    const first = functionEngine(() => ["allow", "notes-allowed"], POLICY_V1);
    // Append 2 (the response with action.admitted) is written, then the process dies before dispatch.
    const crashed = policyRig([callTools([{ name: "note", args: { text: "n" } }])], {
      policy: first,
      tools: [sync.tool],
      journal: crashingJournal(inner, 1, "written"),
    });
    expect(await rejectionOf(crashed.harness.start("note n", { runId: RUN }))).toBeInstanceOf(SimulatedCrash);
    const now = functionEngine(() => ["deny", "notes-frozen"], POLICY_V2);
    const resumer = policyRig(
      [
        (request) => {
          expect(lastToolResults(request.messages)[0]?.result.error?.code).toBe("POLICY_CHANGED");
          return say("stopped");
        },
      ],
      { policy: now, tools: [sync.tool], journal: inner },
    );
    const done = await resumer.harness.resume(RUN);
    expect(done.outcome?.status).toBe("completed");
    expect(sync.calls).toEqual([]);
    expect(now.tuples).toHaveLength(1);
    const added = (await events(inner, RUN)).map((event) => event.type);
    expect(added).toContain("action.reconciled");
    const refused = (await events(inner, RUN)).find((event) => event.type === "action.failed");
    expect(refused?.data).toMatchObject({
      dispatched: false,
      policy: { effect: "deny", policyRevision: POLICY_V2 },
      previousPolicy: { effect: "allow", policyRevision: POLICY_V1 },
    });
  });

  it("a call held behind a parked one is decided again when it may finally run", async () => {
    const pay = payTool();
    let decided = 0;
    // The first call needs a person; the second (same ledger) is allowed at admission, denied by the time it may run.
    const engine = functionEngine(() => {
      decided += 1;
      if (decided === 1) return ["require_approval", "payments-need-a-person"];
      return decided === 2 ? ["allow", "small-payments"] : ["deny", "payments-frozen"];
    });
    const { harness, journal } = policyRig(
      [
        callTools([
          { name: "pay", args: { to: FRIEND_IBAN, amount: 10 } },
          { name: "pay", args: { to: FRIEND_IBAN, amount: 20 } },
        ]),
        (request) => {
          const [approved, held] = lastToolResults(request.messages);
          expect(approved?.result.status).toBe("ok");
          expect(held?.result.error?.code).toBe("POLICY_CHANGED");
          return say("one paid");
        },
      ],
      { policy: engine, tools: [pay.tool] },
    );
    const parked = await harness.start(`pay ${FRIEND_IBAN}`);
    await harness.approve(parked.runId, parked.waiting!.approvals[0]!.approvalId, { approver: "ops" });
    const done = await harness.resume(parked.runId);
    expect(done.outcome?.status).toBe("completed");
    expect(pay.calls.map((call) => call.amount)).toEqual([10]);
    const refused = (await events(journal, parked.runId)).find((event) => event.type === "action.failed");
    expect(refused?.data).toMatchObject({
      policy: { effect: "deny", ruleId: "payments-frozen" },
      previousPolicy: { effect: "allow", ruleId: "small-payments" },
    });
  });

  it("an engine that fails when attempt 2 is due dispatches nothing: the run fails, resumable, and the resume decides the attempt", async () => {
    let broken = false;
    const engine: PolicyEngineV1 = {
      specificationVersion: "v1",
      revision: POLICY_V1,
      decide: () => {
        if (broken) throw new YokeError("POLICY_INVALID", "the policy store is unreachable");
        return { effect: "allow", ruleId: "syncs-allowed", policyRevision: POLICY_V1, reason: "fine" };
      },
    };
    const sync = flakySync(() => {
      broken = true;
    });
    const { harness, journal } = policyRig([callTools([{ name: "sync", args: { key: "k" } }]), say("synced")], { policy: engine, tools: [sync.tool] });
    const error = await rejectionOf(harness.start("sync k", { runId: RUN }));
    expect(YokeError.hasCode(error, "POLICY_INVALID")).toBe(true);
    expect(sync.attempts).toEqual([1]);
    const types = (await events(journal, RUN)).map((event) => event.type);
    expect(types.slice(-2)).toEqual(["action.admitted", "run.failed"]);
    broken = false;
    const done = await harness.resume(RUN);
    expect(done.outcome?.status).toBe("completed");
    expect(sync.attempts).toEqual([1, 2]);
  });

  it.each([
    ["the same revision", POLICY_V1, [1, 2], "ok"],
    ["a new revision", POLICY_V2, [1], "POLICY_CHANGED"],
  ] as const)(
    "a retry of an approved action still needing approval under %s: runs only under the revision the approval answered",
    async (_label, revision, attempts, status) => {
      const policy = swappableEngine();
      policy.swap({ revision: POLICY_V1, effect: "require_approval", rule: "syncs-need-a-person" });
      const sync = flakySync(() => policy.swap({ revision, effect: "require_approval", rule: "syncs-need-a-person" }));
      const { harness, journal } = policyRig(
        [
          callTools([{ name: "sync", args: { key: "k" } }]),
          (request) => {
            const [result] = lastToolResults(request.messages);
            expect(result?.result.error?.code ?? result?.result.status).toBe(status);
            return say("done");
          },
        ],
        { policy: policy.engine, tools: [sync.tool] },
      );
      const parked = await harness.start("sync k");
      await harness.approve(parked.runId, parked.waiting!.approvals[0]!.approvalId, { approver: "ops" });
      const done = await harness.resume(parked.runId);
      expect(done.outcome?.status).toBe("completed");
      expect(sync.attempts).toEqual(attempts);
      const leased = (await events(journal, parked.runId)).find((event) => event.type === "action.leased" && event.data.attempt === 2);
      if (status === "ok") expect(leased?.data).toMatchObject({ rule: "approval", policy: { effect: "require_approval", policyRevision: POLICY_V1 } });
      else expect(leased?.data).not.toHaveProperty("policy");
    },
  );
});

describe("influence is that of the context a call was proposed in", () => {
  it("a call proposed beside an untrusted read is trusted on every attempt; the next response's call is not", async () => {
    const engine = functionEngine(() => ["allow", "syncs-allowed"]);
    const sync = flakySync(() => {});
    const { harness } = policyRig(
      [
        callTools([
          { name: "read_inbox", args: {} },
          { name: "sync", args: { key: "k" } },
        ]),
        callTools([{ name: "sync", args: { key: "k2" } }]),
        say("synced"),
      ],
      { policy: engine, tools: [inboxTool, sync.tool] },
    );
    expect((await harness.start("sync k")).outcome?.status).toBe("completed");
    const syncs = engine.tuples.filter((tuple) => tuple.tool.name === "sync");
    // Attempt 1 and its retry of the first sync, then the second sync, proposed after the inbox was read.
    expect(syncs.map((tuple) => tuple.influence.integrity)).toEqual(["trusted", "trusted", "untrusted", "untrusted"]);
    // A tool's own free-text result lowers it too: "synced k" is text no declared field vouches for.
    expect(syncs[2]?.influence.loweredBy.map((item) => item.toolName)).toEqual(["read_inbox", "sync"]);
  });
});
