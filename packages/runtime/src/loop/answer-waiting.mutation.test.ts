// answer-waiting.ts: what `resume(runId, { input | close })` refuses, and what it journals and
// logs for a run that waits for a person. Written against survivors of
// reports/mutation/runtime.md (issue 17), each applied by hand.
// Equivalent mutants (no test can tell them apart from the code; kept here, not in the code):
// - answer-waiting.ts, dropping `|| state.phase === "finished"`: the fold clears `waiting` with run.completed, so a finished run never waits.
import { YokeError, parseYokeEvent } from "@yoke/protocol";
import { failWith, refuse, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { capturedLogs } from "../__fixtures__/captured-logs.js";
import { TENANT, readAll, rejectionOf, rig } from "../__fixtures__/harness-fixtures.js";
import type { ResumeOptions } from "../harness-types.js";

/** A run that waits for a person after the model refused, the harness that waits on it, and what it logs. */
async function refusedRun(steps: Parameters<typeof rig>[0] = []) {
  const { logger, said } = capturedLogs();
  const { harness, journal, model } = rig([refuse("I won't."), ...steps], { logger });
  const { runId } = await harness.start("t");
  return { harness, journal, model, runId, said };
}

describe("answering a run that waits for a person", () => {
  it("refuses malformed answers (CONFIG_INVALID: the message and the option it names) and journals nothing", async () => {
    const { harness, journal, runId } = await refusedRun();
    const appends = journal.appends.length;
    const refused = async (answer: ResumeOptions) => {
      const error = await rejectionOf(harness.resume(runId, answer));
      return { code: error.code, message: error.message, details: error.details };
    };
    expect(await refused({ input: "yes", close: "no" })).toEqual({
      code: "CONFIG_INVALID",
      message: "resume: pass input or close, not both",
      details: { option: "input" },
    });
    const blank = { code: "CONFIG_INVALID", message: "resume: input must be non-empty text", details: { option: "input" } };
    expect(await refused({ input: " \n" })).toEqual(blank);
    expect(await refused({ input: 7 as unknown as string })).toEqual(blank);
    expect(await refused({ close: 7 as unknown as string })).toEqual({
      code: "CONFIG_INVALID",
      message: "resume: close must be a reason (text)",
      details: { option: "close" },
    });
    expect(journal.appends.length).toBe(appends);
  });

  it("a resume without an answer leaves the run waiting: nothing journaled, the model not asked", async () => {
    const { harness, journal, model, runId } = await refusedRun([say("never asked")]);
    const appends = journal.appends.length;
    const again = await harness.resume(runId);
    expect(again.waiting).toEqual({ kind: "human", reason: "refusal", detail: "I won't.", approvals: [] });
    expect(journal.appends.length).toBe(appends);
    expect(model.calls).toHaveLength(1);
  });

  it("input: journaled as the operator's, caused by the waiting turn, and logged", async () => {
    const { harness, journal, runId, said } = await refusedRun([say("done")]);
    const { outcome } = await harness.resume(runId, { input: "Please go on." });
    expect(outcome).toEqual({ status: "completed" });
    const events = (await readAll(journal, runId)).map(parseYokeEvent);
    const waited = events.find((event) => event.type === "run.waiting");
    const input = events.find((event) => event.type === "input.added");
    expect(waited?.type === "run.waiting" && input?.causationId).toBe(waited?.data.turnId);
    expect(input?.data).toEqual({ source: "operator", content: [{ type: "text", text: "Please go on." }] });
    expect(said("a person answered the run's wait")).toEqual([{ kind: "refusal", answer: "input" }]);
    // act-on-response.ts's log line of the refusal that made the run wait.
    expect(said("the model refused: the run waits for a person")).toEqual([{ turnId: waited?.type === "run.waiting" && waited.data.turnId, kind: "refusal" }]);
  });

  it("close: the run ends refused, and the log says it was closed", async () => {
    const { harness, runId, said } = await refusedRun();
    expect((await harness.resume(runId, { close: "" })).outcome).toEqual({ status: "refused", reason: "I won't." });
    expect(said("a person answered the run's wait")).toEqual([{ kind: "refusal", answer: "close" }]);
  });

  it("a run that does not wait, or has finished: RUN_NOT_WAITING, saying which, with the run and its phase", async () => {
    const failed = rig([failWith(new YokeError("PROVIDER_REQUEST_INVALID", "bad request"))]);
    await rejectionOf(failed.harness.start("t", { runId: "run_failed" }));
    const busy = await rejectionOf(failed.harness.resume("run_failed", { input: "hello?" }));
    expect({ code: busy.code, message: busy.message, details: busy.details }).toEqual({
      code: "RUN_NOT_WAITING",
      message: "run run_failed does not wait for a person: there is nothing to answer",
      details: { tenantId: TENANT, runId: "run_failed", phase: "awaiting_response" },
    });

    const { harness, runId } = await refusedRun();
    await harness.resume(runId, { close: "" });
    const finished = await rejectionOf(harness.resume(runId, { close: "again" }));
    expect({ code: finished.code, message: finished.message, details: finished.details }).toEqual({
      code: "RUN_NOT_WAITING",
      message: `run ${runId} has finished (refused): there is nothing to answer`,
      details: { tenantId: TENANT, runId, phase: "finished" },
    });
  });
});
