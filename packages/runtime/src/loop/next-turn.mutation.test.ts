// next-turn.ts: `cancelledOutcome` (the reason a cancelled run gives, from whatever its signal
// was aborted with), and the end `nextTurnDrafts` journals when cut calls come in responses
// that also had complete calls (the path act-on-response.ts does not take).
// Equivalent mutants (no test can tell them apart from the code; kept here, not in the code):
// - next-turn.ts, addNextTurn's `notes.length === 0` shortcut as false (always adding the notes): adding none leaves the state as it is.
import { parseYokeEvent } from "@yoke/protocol";
import { callTools, say, truncatedToolCall } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { readAll, rig } from "../__fixtures__/harness-fixtures.js";
import { cancelledOutcome } from "./next-turn.js";

const abortedWith = (reason: unknown): AbortSignal => {
  const controller = new AbortController();
  controller.abort(reason);
  return controller.signal;
};

describe("cancelledOutcome", () => {
  it("takes a string reason as it is", () => {
    expect(cancelledOutcome(abortedWith("operator stop"))).toEqual({ status: "cancelled", reason: "operator stop" });
  });

  it("takes an error's message", () => {
    expect(cancelledOutcome(abortedWith(new Error("deploy window closed")))).toEqual({ status: "cancelled", reason: "deploy window closed" });
  });

  it("says who cancelled when the reason has no text: an error without a message, or neither a string nor an error", () => {
    const fallback = { status: "cancelled", reason: "cancelled by the caller" };
    expect(cancelledOutcome(abortedWith(new Error("")))).toEqual(fallback);
    expect(cancelledOutcome(abortedWith(42))).toEqual(fallback);
    expect(cancelledOutcome(abortedWith({ message: "not an error" }))).toEqual(fallback);
  });

  it("a plain abort() gives the platform's AbortError message", () => {
    const controller = new AbortController();
    controller.abort();
    const reason: unknown = controller.signal.reason;
    expect(reason).toBeInstanceOf(Error);
    expect(cancelledOutcome(controller.signal)).toEqual({ status: "cancelled", reason: (reason as Error).message });
  });
});

describe("nextTurnDrafts after a batch whose response also had a cut call", () => {
  it("ends the run escalated, after the batch's results, on the third such response in a row (truncatedCallRetries 2)", async () => {
    const mixed = () => truncatedToolCall("echo", '{"te', { calls: [{ name: "echo", args: { text: "a" } }] });
    const { harness, model, journal } = rig([mixed(), mixed(), mixed(), say("never asked")]);
    const { runId, outcome, state } = await harness.start("t");
    expect(model.remaining).toBe(1);
    expect(outcome).toEqual({
      status: "escalated",
      reason: "the output token limit cut the model's tool call in 3 responses in a row (last: echo); raise the model's output limit or ask for smaller steps",
    });
    expect(state.turns).toBe(3);
    // The third batch's result and the run's end, in one append: no fourth turn.
    expect(journal.appends.at(-1)?.at(-1)).toBe("run.completed");
    expect(journal.appends.at(-1)).toContain("action.committed");
    const types = (await readAll(journal, runId)).map((event) => event.type);
    expect(types.filter((type) => type === "input.added")).toHaveLength(2);
    expect(types.filter((type) => type === "turn.started")).toHaveLength(3);
  });
});

describe("nextTurnDrafts when loop detection escalates after a response that also had a cut call", () => {
  it("journals the cut call's note with the escalation: the person who answers sees it, and the model after them", async () => {
    const echo = () => callTools([{ name: "echo", args: { text: "x" } }]);
    const { harness, journal } = rig([
      echo(),
      echo(),
      echo(),
      truncatedToolCall("store", '{"ke', { calls: [{ name: "echo", args: { text: "x" } }] }),
      say("never asked"),
    ]);
    const result = await harness.start("t");
    expect(result.waiting).toMatchObject({ kind: "human", reason: "escalation" });
    const events = (await readAll(journal, result.runId)).map(parseYokeEvent);
    expect(events.at(-1)?.type).toBe("run.waiting");
    const sources = events.flatMap((event) => (event.type === "input.added" ? [event.data.source] : []));
    expect(sources).toEqual(["loop-detection", "output-limit"]);
  });
});
