// The loop's phase `ready` goes through `runCompensations` only when compensations are pending
// (run-compensations.ts, `hasPendingCompensations`): that path commits the next turn without
// polling the run's interrupts first, so a cancel sent as an interrupt would land only after
// one more turn was journaled. A run in phase `ready` with nothing to undo is built here as a
// journal cut after a batch (every call answered, no next turn yet). The signal test does not
// tell the two paths apart (`nextTurnDrafts` checks the signal itself); it pins the outcome.
import { createMemoryJournal } from "@yoke/journal";
import type { JournalV1, YokeEventDraft } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { TENANT, foldJournal, readAll, rig } from "../__fixtures__/harness-fixtures.js";

/**
 * A run whose one tool call (echo) ran and was committed, cut before its second turn: the
 * events of a real run up to its second `turn.started`, copied into a fresh journal. Phase
 * `ready`, every call answered, one action (committed), nothing to undo.
 */
async function journalReadyAfterBatch(): Promise<{ journal: JournalV1; runId: string }> {
  const first = rig([callTools([{ name: "echo", args: { text: "hi" } }]), say("done")]);
  const { runId, outcome } = await first.harness.start("t");
  expect(outcome).toEqual({ status: "completed" });
  const events = await readAll(first.journal, runId);
  const cut = events.findLastIndex((event) => event.type === "turn.started");
  const journal = createMemoryJournal();
  const drafts = events.slice(0, cut).map(({ type, at, causationId, data }) => ({ type, at, causationId, data }) as YokeEventDraft);
  await journal.append({ tenantId: TENANT, runId }, 0, drafts);
  return { journal, runId };
}

describe("a cancelled run in phase ready with no compensation pending", () => {
  it("the fixture is in phase ready with every call answered and nothing to undo", async () => {
    const { journal, runId } = await journalReadyAfterBatch();
    const state = await foldJournal(journal, { tenantId: TENANT, runId });
    expect(state.phase).toBe("ready");
    expect(state.pendingToolCalls).toEqual([]);
    expect(state.actions.map((action) => action.status.state)).toEqual(["committed"]);
  });

  it("cancelled by its signal: ends the run, journals no next turn, asks the model nothing", async () => {
    const { journal, runId } = await journalReadyAfterBatch();
    const controller = new AbortController();
    controller.abort("operator stop");
    const fresh = rig([], { journal });
    const { outcome, state } = await fresh.harness.resume(runId, { signal: controller.signal });
    expect(outcome).toEqual({ status: "cancelled", reason: "operator stop" });
    expect(fresh.journal.appends.flat()).not.toContain("turn.started");
    expect(fresh.journal.appends.flat()).not.toContain("model.requested");
    expect(fresh.journal.appends.at(-1)?.at(-1)).toBe("run.completed");
    expect(state.turns).toBe(1);
    expect(state.actions.map((action) => action.status.state)).toEqual(["committed"]);
  });

  it("cancelled by an interrupt sent while nobody drove it: ends the run, journals no next turn", async () => {
    const { journal, runId } = await journalReadyAfterBatch();
    const fresh = rig([], { journal });
    await fresh.harness.interrupt(runId, { cancel: "operator stop" });
    const { outcome, state } = await fresh.harness.resume(runId);
    expect(outcome).toEqual({ status: "cancelled", reason: "operator stop" });
    expect(fresh.journal.appends.flat()).not.toContain("turn.started");
    expect(state.turns).toBe(1);
  });
});
