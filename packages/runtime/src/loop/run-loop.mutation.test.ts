// run-loop.ts: a run resumed with its signal already aborted ends cancelled at the loop's first
// step, whatever phase its journal left it in: it does not act on a response it already has
// (which would complete it), nor start the model call it was waiting for.
// Equivalent mutants (no test can tell them apart from the code; kept here, not in the code):
// - current-turn.ts: both guards are unreachable from a folded state, so the mutants of their messages and details have no test.
// - run-facts.ts, observeRunFacts' `default` clause emptied: it falls out of the switch, the same.
// - run-loop.ts, `state.phase === "ready"` before the compensations as true: they are pending only in phase ready or in a finished run, handled before.
import { createMemoryJournal } from "@yoke/journal";
import type { ProviderAdapterV1, YokeEventDraft } from "@yoke/protocol";
import { callTools, createScriptedModel, refuse, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { capturedLogs } from "../__fixtures__/captured-logs.js";
import { TENANT, readAll, recordingJournal, rig } from "../__fixtures__/harness-fixtures.js";
import { FRIEND_IBAN, functionEngine, payTool, policyRig } from "../__fixtures__/policy-fixtures.js";
import type { RunResult, WaitingRunResult } from "../harness-types.js";

/** A finished one-turn run's events up to (not including) the first event of type `before`, in a fresh journal. */
async function cutBefore(before: string): Promise<{ journal: ReturnType<typeof createMemoryJournal>; runId: string }> {
  const first = rig([say("done")]);
  const { runId } = await first.harness.start("t");
  const events = await readAll(first.journal, runId);
  const cut = events.findIndex((event) => event.type === before);
  expect(cut).toBeGreaterThan(0);
  const journal = createMemoryJournal();
  const drafts = events.slice(0, cut).map(({ type, at, causationId, data }) => ({ type, at, causationId, data }) as YokeEventDraft);
  await journal.append({ tenantId: TENANT, runId }, 0, drafts);
  return { journal, runId };
}

const aborted = () => {
  const controller = new AbortController();
  controller.abort("operator stop");
  return controller.signal;
};

describe("a resume with the run's signal already aborted", () => {
  it("in phase responded (the answer journaled, the run not ended): cancelled, not completed", async () => {
    const { journal, runId } = await cutBefore("run.completed");
    const fresh = rig([], { journal });
    const { outcome } = await fresh.harness.resume(runId, { signal: aborted() });
    expect(outcome).toEqual({ status: "cancelled", reason: "operator stop" });
    expect(fresh.journal.appends).toEqual([["run.completed"]]);
  });

  it("in phase awaiting_response (the request journaled, no answer): cancelled without a model call, and no model.failed", async () => {
    const { journal, runId } = await cutBefore("model.responded");
    const fresh = rig([say("never asked")], { journal });
    const { outcome } = await fresh.harness.resume(runId, { signal: aborted() });
    expect(outcome).toEqual({ status: "cancelled", reason: "operator stop" });
    expect(fresh.model.remaining).toBe(1);
    expect(fresh.journal.appends).toEqual([["run.completed"]]);
  });
});

// run-loop.ts:33-34 (`live.release()` removed, the `finally` emptied): the run's controller stayed in
// its harness's map of live runs after the run returned, so a cancel sent later through the same
// harness aborted a run nobody drove any more, the signal of a model call long answered included.
describe("a run that returns lets go of its harness's cancel", () => {
  it("a cancel sent to a run waiting for a person aborts no signal of its past model calls", async () => {
    const model = createScriptedModel([refuse("Which account?")]);
    const signals: AbortSignal[] = [];
    const provider: ProviderAdapterV1 = {
      ...model,
      generate: (request, options) => {
        if (options?.signal !== undefined) signals.push(options.signal);
        return model.generate(request, options);
      },
    };
    const { logger, said } = capturedLogs();
    const { harness } = rig([], { provider, logger });
    const waiting = (await harness.start("t")) as RunResult | WaitingRunResult;
    expect(waiting.waiting?.kind).toBe("human");
    // run-loop.ts:80 (the log line's fields or text emptied).
    expect(said("run waits for a person")).toEqual([{ kind: waiting.waiting?.kind === "human" ? waiting.waiting.reason : "?" }]);
    model.assertConsumed();
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(false);
    const { interruptId } = await harness.interrupt(waiting.runId, { cancel: "operator stop" });
    expect(signals[0]!.aborted).toBe(false);
    expect((await harness.resume(waiting.runId)).outcome).toEqual({ status: "cancelled", reason: "operator stop" });
    // run-loop.ts:67 (the log line's fields or text emptied).
    expect(said("cancelled by an interrupt")).toEqual([{ interruptId }]);
  });
});

// run-loop.ts:65 (`state.phase === "tools_pending"` as false): a cancel pending while calls wait for an
// approval landed in phase tools_pending, between a call and its result (decision 0015: never there).
describe("a cancel sent to a run parked for an approval", () => {
  it("does not land while the call waits; it lands at the turn boundary after the approved call ran", async () => {
    const pay = payTool();
    const journal = recordingJournal();
    const { logger, said } = capturedLogs();
    const { harness } = policyRig([callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 } }]), say("never asked")], {
      policy: functionEngine(() => ["require_approval", "payments-need-a-person"]),
      tools: [pay.tool],
      journal,
      logger,
    });
    const parked = await harness.start(`Pay my friend ${FRIEND_IBAN}`);
    expect(parked.waiting?.kind).toBe("approval");
    const approvalId = parked.waiting!.approvals[0]!.approvalId;
    // run-loop.ts:101 (the log line's fields, the approvals' ids, or its text emptied).
    expect(said("run waits for approval")).toEqual([{ approvals: [approvalId] }]);
    await harness.interrupt(parked.runId, { cancel: "operator stop" });
    const appends = journal.appends.length;
    const still = await harness.resume(parked.runId);
    expect(still.outcome).toBeUndefined();
    expect(still.waiting?.approvals).toHaveLength(1);
    expect(journal.appends.slice(appends).flat()).not.toContain("interrupt.landed");
    await harness.approve(parked.runId, approvalId, { approver: "ops@example.com" });
    const done = await harness.resume(parked.runId);
    expect(done.outcome).toEqual({ status: "cancelled", reason: "operator stop" });
    expect(pay.calls.map((call) => call.amount)).toEqual([10]);
    expect(done.state.actions.map((action) => action.status.state)).toEqual(["committed"]);
  });
});
