// cancel-drafts.ts: what `model.failed` says when a run is cancelled around its model call. An
// answer that lands as the run is cancelled is dropped, and the journal says so (not "the call
// was cancelled", which would claim the model never answered).
// Equivalent mutants (no test can tell them apart from the code; kept here, not in the code):
// - cancel-drafts.ts, the `awaiting_response` phase test as true: a model call's reservation is open only in that phase, and settling none journals nothing.
import { parseYokeEvent } from "@yoke/protocol";
import { say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { readAll, rig } from "../__fixtures__/harness-fixtures.js";

describe("cancelDrafts' model.failed", () => {
  it("an answer that arrives as the run is cancelled: dropped, and model.failed says it was", async () => {
    const controller = new AbortController();
    // The abort lands in the window between the provider's answer and the loop's look at the
    // signal: the attempt's deadline timer is cleared there (a caller's abort from another task
    // can land there too, while the inbox watch stops). Timers that abort on that clear, once
    // the model has answered, put it there deterministically.
    let answered = false;
    const timers = {
      setTimeout: (callback: () => void, ms: number): unknown => setTimeout(callback, ms),
      clearTimeout: (handle: unknown) => {
        clearTimeout(handle as ReturnType<typeof setTimeout>);
        if (answered && !controller.signal.aborted) controller.abort("operator stop");
      },
    };
    const { harness, journal } = rig(
      [
        () => {
          answered = true;
          return say("too late");
        },
      ],
      { timers },
    );
    const { runId, outcome, state } = await harness.start("t", { signal: controller.signal });
    expect(outcome).toEqual({ status: "cancelled", reason: "operator stop" });
    expect(journal.appends.at(-1)).toEqual(["model.failed", "run.completed"]);
    const failed = (await readAll(journal, runId)).map(parseYokeEvent).find((event) => event.type === "model.failed");
    expect(failed?.type === "model.failed" && failed.data).toMatchObject({
      attempt: 1,
      code: "CANCELLED",
      message: "the run was cancelled as the model answered; its answer was dropped: operator stop",
      retryable: false,
      retrying: false,
    });
    // The dropped answer is nowhere in the transcript.
    expect(JSON.stringify(state.messages)).not.toContain("too late");
  });
});
