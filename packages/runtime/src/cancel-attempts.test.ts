// A cancelled run journals no attempt it will not run: no `executing` after the abort.
import { createMemoryJournal } from "@yoke/journal";
import { YokeError, parseYokeEvent, type JournalEvent, type RunState } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  SimulatedCrash,
  countingTool,
  crashingJournal,
  journalCutAfterResponse,
  keyedTool,
  readAll,
  rejectionOf,
  rig,
} from "./__fixtures__/harness-fixtures.js";
import { defineTool } from "./define-tool.js";

const nothingExecuting = (state: RunState) => expect(state.actions.filter((action) => action.status.state === "executing")).toEqual([]);

/** The event types journaled after the first `action.admitted`. */
const afterAdmission = (events: JournalEvent[]) => events.slice(events.findIndex((event) => event.type === "action.admitted") + 1).map((event) => event.type);

describe("cancellation never journals a new attempt", () => {
  it("an idempotent tool that fails retryably while the run is cancelled: reconciled, then failed as not dispatched, not leased again", async () => {
    const controller = new AbortController();
    let runs = 0;
    const flaky = keyedTool("flaky", "idempotent", async () => {
      runs += 1;
      controller.abort("operator stop");
      throw new YokeError("PROVIDER_UNAVAILABLE", "503");
    });
    const { harness, journal, model } = rig([callTools([{ name: "flaky", args: { key: "k" } }]), say("never asked")], { tools: [flaky] });
    const { runId, outcome, state } = await harness.start("t", { signal: controller.signal });
    expect(outcome).toEqual({ status: "cancelled", reason: "operator stop" });
    expect(runs).toBe(1);
    expect(model.remaining).toBe(1);
    const events = await readAll(journal, runId);
    expect(afterAdmission(events)).toEqual(["action.uncertain", "action.reconciled", "action.failed", "run.completed"]);
    const failed = events.map(parseYokeEvent).find((event) => event.type === "action.failed");
    expect(failed?.type === "action.failed" && failed.data).toMatchObject({ dispatched: false, retrying: false, result: { error: { code: "CANCELLED" } } });
    nothingExecuting(state);
  });

  it("a retryable failure settled after the run was cancelled is not retried", async () => {
    const controller = new AbortController();
    const flaky = keyedTool("flaky", "idempotent", async () => {
      throw new YokeError("PROVIDER_UNAVAILABLE", "503");
    });
    const stopper = defineTool({
      name: "stopper",
      description: "Stops the run.",
      input: z.object({}),
      sideEffect: "none",
      access: () => ({ reads: [], writes: [] }),
      execute: async () => {
        // Lets the other call's failure be settled by the executor first.
        for (let tick = 0; tick < 10; tick++) await Promise.resolve();
        controller.abort("operator stop");
        return "stopped";
      },
    });
    const { harness, journal } = rig([callTools([{ name: "flaky", args: { key: "k" } }, { name: "stopper" }])], { tools: [flaky, stopper] });
    const { runId, outcome, state } = await harness.start("t", { signal: controller.signal });
    expect(outcome?.status).toBe("cancelled");
    const events = await readAll(journal, runId);
    // The stopper is abandoned as it returns (CANCELLED); neither is leased again.
    expect(afterAdmission(events).filter((type) => type !== "action.admitted")).toEqual(["action.failed", "action.failed", "run.completed"]);
    const failed = events.map(parseYokeEvent).find((event) => event.type === "action.failed");
    expect(failed?.type === "action.failed" && failed.data).toMatchObject({ dispatched: true, retryable: true, retrying: false });
    nothingExecuting(state);
  });

  it("a resume with the run cancelled: a cut attempt is reconciled, and its next attempt fails as not dispatched instead of being leased", async () => {
    const inner = createMemoryJournal();
    const store = countingTool("store", "idempotent");
    const first = rig([callTools([{ name: "store", args: { key: "k" } }]), say("never asked")], {
      journal: crashingJournal(inner, 2, "lost"),
      tools: [store.tool],
    });
    expect(await rejectionOf(first.harness.start("t", { runId: "run_cut" }))).toBeInstanceOf(SimulatedCrash);
    expect(store.calls).toHaveLength(1);

    const controller = new AbortController();
    controller.abort("operator stop");
    const fresh = rig([], { journal: inner, tools: [store.tool], idStart: 1_000 });
    const { outcome, state } = await fresh.harness.resume("run_cut", { signal: controller.signal });
    expect(outcome).toEqual({ status: "cancelled", reason: "operator stop" });
    expect(store.calls).toHaveLength(1);
    expect(fresh.journal.appends).toEqual([["action.uncertain", "action.reconciled", "action.failed", "run.completed"]]);
    nothingExecuting(state);
  });

  it("a resume with the run cancelled answers calls never admitted with CANCELLED instead of admitting them", async () => {
    const store = countingTool("store", "idempotent");
    const journal = await journalCutAfterResponse(
      "run_unjudged",
      [store.tool],
      [{ type: "tool-call", toolCallId: "c1", toolName: "store", rawArguments: '{"key":"k"}', arguments: { key: "k" } }],
    );
    const controller = new AbortController();
    controller.abort("operator stop");
    const fresh = rig([], { journal, tools: [store.tool] });
    const { outcome, state } = await fresh.harness.resume("run_unjudged", { signal: controller.signal });
    expect(outcome?.status).toBe("cancelled");
    expect(store.calls).toEqual([]);
    expect(fresh.journal.appends).toEqual([["tool.rejected", "run.completed"]]);
    const tool = state.messages.at(-1);
    expect(tool?.role === "tool" && tool.content[0]!.result.error?.code).toBe("CANCELLED");
    nothingExecuting(state);
  });
});
