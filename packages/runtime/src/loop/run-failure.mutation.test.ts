// runFailedDraft's data, exactly: written against the two survivors of reports/mutation/runtime.md
// (issue 17) at run-failure.ts:34 and :40, each applied by hand; and journalRunFailure's log lines, with a
// journal that refuses the run.failed (the catch at :90-91, never reached before).
import { createMemoryJournal } from "@yoke/journal";
import { YokeError, type JournalV1, type YokeErrorCode } from "@yoke/protocol";
import { say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { capturedLogs } from "../__fixtures__/captured-logs.js";
import { rig } from "../__fixtures__/harness-fixtures.js";
import type { ModelCallFailure } from "../model-call.js";
import type { RunContext } from "../run-context.js";
import { runFailedDraft } from "./run-failure.js";

/** The parts of a run context runFailedDraft reads: the current turn and the clock. */
function contextAt(currentTurnId: string | undefined): RunContext {
  return { accumulator: { peek: () => ({ currentTurnId }) }, deps: { clock: { now: () => 42 } } } as unknown as RunContext;
}

describe("runFailedDraft", () => {
  // Mutant :40 (`turnId` always set): a failure outside any turn carried `turnId: undefined`.
  it("has no turnId member, and no causation, for a failure outside any turn", () => {
    const draft = runFailedDraft(contextAt(undefined), new YokeError("CONFIG_INVALID", "no model"));
    expect(draft.causationId).toBeNull();
    expect(Object.keys(draft.data).sort()).toEqual(["code", "message", "retryable"]);
    expect(draft.data).toStrictEqual({ code: "CONFIG_INVALID", message: "no model", retryable: false });
    expect(runFailedDraft(contextAt("turn_3"), new Error("boom"))).toStrictEqual({
      type: "run.failed",
      at: 42,
      causationId: "turn_3",
      data: { turnId: "turn_3", code: "INTERNAL", message: "boom", retryable: false },
    });
  });

  // Mutant :34 (`model?.requestId ?? …` as `&&`): the failed call's own request id was dropped
  // whenever the thrown error's details did not repeat it.
  it("takes the request id from the failed model call first, then from the error's details", () => {
    const failure: ModelCallFailure = { attempt: 2, code: "PROVIDER_UNAVAILABLE", message: "503", retryable: true, retrying: false, requestId: "req_call" };
    const withCall = runFailedDraft(contextAt("turn_1"), new Error("socket hang up"), failure);
    expect(withCall.data).toStrictEqual({
      turnId: "turn_1",
      code: "PROVIDER_UNAVAILABLE",
      message: "503",
      retryable: true,
      requestId: "req_call",
      attempts: 2,
    });
    const fromError = runFailedDraft(contextAt("turn_1"), new YokeError("PROVIDER_UNAVAILABLE", "503", { details: { requestId: "req_error" } }));
    // :43 (a YokeError's `retryable` dropped when no model call failed): a retryable error is journaled as retryable.
    expect(fromError.data).toMatchObject({ requestId: "req_error", retryable: true });
    expect(
      runFailedDraft(contextAt("turn_1"), new YokeError("PROVIDER_UNAVAILABLE" as YokeErrorCode, "503", { details: { requestId: 7 } })).data,
    ).not.toHaveProperty("requestId");
  });
});

/** A memory journal that refuses, with `error`, the appends holding an event of type `type` (a full disk, say): every other append goes through. */
function refusing(type: string, error: Error): JournalV1 {
  const inner = createMemoryJournal();
  return {
    ...inner,
    append: (scope, expectedSeq, drafts, options) =>
      drafts.some((draft) => draft.type === type) ? Promise.reject(error) : inner.append(scope, expectedSeq, drafts, options),
  } as JournalV1;
}

/** A completion check that throws `error`: the run stops on it, outside any model call. */
const brokenCheck = (error: Error) => () => {
  throw error;
};

describe("journalRunFailure's log lines", () => {
  // The code logged: the YokeError's own, else INTERNAL.
  const errors = [
    { error: new Error("the checker's database is down"), code: "INTERNAL" },
    { error: new YokeError("PROVIDER_UNAVAILABLE", "the checker's model is down"), code: "PROVIDER_UNAVAILABLE" },
  ];

  it.each(errors)("the run's error journaled: its code is logged ($code)", async ({ error, code }) => {
    const { logger, said } = capturedLogs();
    const { harness } = rig([say("done")], { logger, checkCompletion: brokenCheck(error) });
    await expect(harness.start("t")).rejects.toBe(error);
    expect(said("run stopped by an error; journaled as run.failed")).toEqual([{ code }]);
    expect(said("could not journal run.failed")).toEqual([]);
  });

  it.each(errors)(
    "a run.failed the journal refuses: the journal's error code is logged ($code), and the run's own error propagates",
    async ({ error, code }) => {
      const { logger, said } = capturedLogs();
      const stopped = new Error("the checker's database is down");
      const { harness } = rig([say("done")], { logger, checkCompletion: brokenCheck(stopped), journal: refusing("run.failed", error) });
      await expect(harness.start("t")).rejects.toBe(stopped);
      expect(said("could not journal run.failed")).toEqual([{ code }]);
      expect(said("run stopped by an error; journaled as run.failed")).toEqual([]);
    },
  );

  // :72 (`fold.failure !== undefined` as false): after a failed append, the live state is ahead of the journal, and nothing is tried.
  it("an append that failed: no run.failed is tried after it, nothing logged", async () => {
    const { logger, said } = capturedLogs();
    const full = new Error("disk full");
    const { harness, journal } = rig([say("done")], { logger, journal: refusing("model.responded", full) });
    await expect(harness.start("t", { runId: "run_full" })).rejects.toBe(full);
    expect(said("could not journal run.failed")).toEqual([]);
    expect(said("run stopped by an error; journaled as run.failed")).toEqual([]);
    expect(journal.appends.flat()).not.toContain("run.failed");
  });

  // :68 (`context.signal?.aborted` as false): a run cancelled as it stopped on another error journals no run.failed.
  it("a run cancelled as it stops on an error that is not a cancellation: no run.failed", async () => {
    const controller = new AbortController();
    const stopped = new Error("the checker's database is down");
    const { harness, journal } = rig([say("done")], {
      checkCompletion: () => {
        controller.abort("operator stop");
        throw stopped;
      },
    });
    await expect(harness.start("t", { signal: controller.signal })).rejects.toBe(stopped);
    expect(journal.appends.flat()).not.toContain("run.failed");
  });
});
