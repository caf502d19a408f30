// run-loop.ts: a run resumed with its signal already aborted ends cancelled at the loop's first
// step, whatever phase its journal left it in: it does not act on a response it already has
// (which would complete it), nor start the model call it was waiting for.
import { createMemoryJournal } from "@yoke/journal";
import type { ProviderAdapterV1, YokeEventDraft } from "@yoke/protocol";
import { createScriptedModel, refuse, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { TENANT, readAll, rig } from "../__fixtures__/harness-fixtures.js";
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
    const { harness } = rig([], { provider });
    const waiting = (await harness.start("t")) as RunResult | WaitingRunResult;
    expect(waiting.waiting?.kind).toBe("human");
    model.assertConsumed();
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(false);
    await harness.interrupt(waiting.runId, { cancel: "operator stop" });
    expect(signals[0]!.aborted).toBe(false);
  });
});
