// run-tools.ts, recovery: an action a stopped process journaled for a tool the resuming
// harness cannot run is never dropped nor run: the run ends escalated, naming the action.
// Runs pin their tools today (an action carries its `toolRevision`, and a missing revision
// stops the run with TOOL_REVISION_UNAVAILABLE); this is the path of a journal written
// before pinning, built here from a real run's events with the pinning taken out.
// Equivalent mutants (no test can tell them apart from the code; kept here, not in the code):
// - run-tools.ts, the fork source's delete after a batch: as a no-op it is not seen through the API (a spawn runs only inside a batch of its run, whose start sets the entry again); only the memory held differs.
// - run-tools.ts, deleting settled attempts from `dispatchable`: not deleting (the test as false) only keeps dead entries until the run's context ends; deleting a deferred item is not equivalent (tested).
// - run-tools.ts, `deferred.length > 0` as false: a deferred call waits for a retry (in `retries`) or an uncertain outcome (which escalated before).
// - run-tools.ts, the retry round's `drafts.length > 0` as `true` or `>=`: never empty there.
// - run-tools.ts, `compensate: true` as `false` in endBatch's plan: compensationPlan asks only whether the member is there.
// - run-tools.ts, escalateBatch's `dispatchable.delete` removed: the run ends there.
// - run-tools.ts, reserveLeased's `dispatchable.delete` removed: the batch's end deletes every entry but a deferred one's anyway.
// - run-tools.ts, reserveAhead's `items.length === 0` as false: reserveAttempts of no items reserves nothing.
import { createMemoryJournal } from "@yoke/journal";
import type { JournalEvent, YokeEventDraft } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { TENANT, countingTool, crashingJournal, echoTool, readAll, rejectionOf, rig } from "../__fixtures__/harness-fixtures.js";

/** An event as a draft, without the run's pinned revisions and its actions' `toolRevision`. */
function unpinned({ type, at, causationId, data }: JournalEvent): YokeEventDraft {
  const { revisions: _revisions, toolRevision: _toolRevision, ...rest } = data as Record<string, unknown>;
  return { type, at, causationId, data: rest } as YokeEventDraft;
}

describe("a resume that finds an action journaled for a tool this harness lacks", () => {
  it("ends the run escalated on that action, without running or retrying it", async () => {
    const cut = createMemoryJournal();
    const store = countingTool("store", "idempotent");
    const first = rig([callTools([{ name: "store", args: { key: "k" } }]), say("never asked")], {
      journal: crashingJournal(cut, 2, "lost"),
      tools: [store.tool],
    });
    await rejectionOf(first.harness.start("t", { runId: "run_lacking" }));
    expect(store.calls).toHaveLength(1);
    const actionId = store.calls[0]!.actionId;
    const events = await readAll(cut, "run_lacking");
    const legacy = createMemoryJournal();
    await legacy.append({ tenantId: TENANT, runId: "run_lacking" }, 0, events.map(unpinned));

    const fresh = rig([say("never asked")], { journal: legacy, tools: [echoTool], idStart: 1_000 });
    const { outcome, state } = await fresh.harness.resume("run_lacking");
    // The code is whichever the judging gives (TOOL_REVISION_UNAVAILABLE today).
    expect(outcome).toEqual({
      status: "escalated",
      reason: expect.stringMatching(new RegExp(`^action ${actionId} was journaled for store, which this harness cannot run \\(TOOL_[A-Z_]+\\)$`)),
      actionId,
    });
    expect(store.calls).toHaveLength(1);
    expect(fresh.model.remaining).toBe(1);
    expect(fresh.journal.appends.at(-1)?.at(-1)).toBe("run.completed");
    expect(state.actions.map((action) => action.actionId)).toEqual([actionId]);
  });
});
