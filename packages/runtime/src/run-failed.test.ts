// Failures live in the journal: a run that stops on an error (a model call whose retries ran
// out, a provider error that must not be retried, an error thrown inside the loop) ends its
// journal with `run.failed`, which says why; `resume` continues from there.
import { YokeError, isEventOfType, parseYokeEvent, type YokeErrorCode, type YokeEvent } from "@yoke/protocol";
import { failWith, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import type { TokenCounter } from "@yoke/context-compiler";
import { readAll, rejectionOf, rig } from "./__fixtures__/harness-fixtures.js";

const pass = async () => ({ passed: true as const });

async function journaled(journal: Parameters<typeof readAll>[0], runId: string): Promise<YokeEvent[]> {
  return (await readAll(journal, runId)).map(parseYokeEvent);
}

describe("run.failed", () => {
  it("retries run out: every attempt is a model.failed, the last shares its append with run.failed (code, request id, attempts); a resume finishes the run", async () => {
    const outage = () => failWith(new YokeError("PROVIDER_UNAVAILABLE", "503 overloaded", { details: { requestId: "req_503" } }));
    const first = rig([outage(), outage(), outage()], { modelRetries: 2, checkCompletion: pass });
    const error = await rejectionOf(first.harness.start("t", { runId: "run_outage" }));
    expect(error.code).toBe("PROVIDER_UNAVAILABLE");
    expect(first.journal.appends.slice(1)).toEqual([["model.failed"], ["model.failed"], ["model.failed", "run.failed"]]);
    const events = await journaled(first.journal, "run_outage");
    expect(events.filter((event) => isEventOfType(event, "model.failed")).map((event) => [event.data.attempt, event.data.requestId])).toEqual([
      [1, "req_503"],
      [2, "req_503"],
      [3, "req_503"],
    ]);
    const last = events.at(-1)!;
    expect(isEventOfType(last, "run.failed") && last.data).toEqual({
      turnId: expect.any(String),
      code: "PROVIDER_UNAVAILABLE",
      message: "503 overloaded",
      retryable: true,
      requestId: "req_503",
      attempts: 3,
    });
    expect((await first.harness.getState("run_outage")).phase).toBe("awaiting_response");

    const second = rig([say("done")], { journal: first.journal, idStart: 100, checkCompletion: pass });
    expect((await second.harness.resume("run_outage")).outcome?.status).toBe("verified_success");
    second.model.assertConsumed();
    expect(second.journal.appends[0]).toEqual(["model.responded"]);
  });

  it("a non-retryable provider error: one model.failed and run.failed in one append; a resume finishes the run", async () => {
    const first = rig([failWith(new YokeError("PROVIDER_REQUEST_INVALID", "bad request", { details: { requestId: "req_400" } }))], { checkCompletion: pass });
    expect((await rejectionOf(first.harness.start("t", { runId: "run_400" }))).code).toBe("PROVIDER_REQUEST_INVALID");
    expect(first.journal.appends.slice(1)).toEqual([["model.failed", "run.failed"]]);
    const last = (await journaled(first.journal, "run_400")).at(-1)!;
    expect(isEventOfType(last, "run.failed") && last.data).toMatchObject({
      code: "PROVIDER_REQUEST_INVALID",
      retryable: false,
      requestId: "req_400",
      attempts: 1,
    });

    const second = rig([say("done")], { journal: first.journal, idStart: 100, checkCompletion: pass });
    expect((await second.harness.resume("run_400")).outcome?.status).toBe("verified_success");
  });

  it("an error thrown by the completion check is journaled (INTERNAL, its message); a resume asks the check again, not the model", async () => {
    const first = rig([say("done")], {
      checkCompletion: () => {
        throw new Error("the checker's database is down");
      },
    });
    const error: unknown = await first.harness.start("t", { runId: "run_check" }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error instanceof Error && error.message).toBe("the checker's database is down");
    expect(first.journal.appends.at(-1)).toEqual(["run.failed"]);
    const last = (await journaled(first.journal, "run_check")).at(-1)!;
    expect(isEventOfType(last, "run.failed") && last.data).toEqual({
      turnId: expect.any(String),
      code: "INTERNAL",
      message: "the checker's database is down",
      retryable: false,
    });
    expect((await first.harness.getState("run_check")).phase).toBe("responded");

    const second = rig([], { journal: first.journal, idStart: 100, checkCompletion: pass });
    expect((await second.harness.resume("run_check")).outcome?.status).toBe("verified_success");
    // The check is a replay-safe verifier (issue 15): its cut-short run is started again, then its verdict lands with the outcome.
    expect(second.journal.appends).toEqual([["verifier.started"], ["verifier.finished", "completion.checked", "run.completed"]]);
  });

  it("an error thrown by the context compiler after events were folded ahead is journaled where the journal ends; a resume continues", async () => {
    // The failed check's feedback is folded ahead of its append; compiling the next request with it throws.
    const counter = (broken: boolean): TokenCounter => ({
      encoding: "estimate",
      mode: "estimated",
      count: (text) => {
        if (broken && text.includes("try again")) throw new YokeError("CONTEXT_OVERFLOW" as YokeErrorCode, "the tokenizer gave up");
        return Math.ceil(text.length / 4);
      },
    });
    const failOnce = async () => ({ passed: false as const, reason: "try again" });
    const seen: string[] = [];
    const first = rig([say("draft")], { checkCompletion: failOnce, context: { tokenCounter: counter(true) }, onEvent: (event) => seen.push(event.type) });
    const error = await rejectionOf(first.harness.start("t", { runId: "run_compile" }));
    expect(error.code).toBe("CONTEXT_OVERFLOW");
    expect(first.journal.appends.at(-1)).toEqual(["run.failed"]);
    // onEvent hears of it too, as of every stored event (run-failure.ts's own append, not commit's).
    expect(seen.at(-1)).toBe("run.failed");
    const last = (await journaled(first.journal, "run_compile")).at(-1)!;
    expect(isEventOfType(last, "run.failed") && last.data).toMatchObject({ code: "CONTEXT_OVERFLOW", message: "the tokenizer gave up", retryable: false });
    expect((await first.harness.getState("run_compile")).phase).toBe("responded");

    const second = rig([say("done")], { journal: first.journal, idStart: 100, checkCompletion: pass, context: { tokenCounter: counter(false) } });
    expect((await second.harness.resume("run_compile")).outcome?.status).toBe("verified_success");
  });

  it("is not journaled for a cancelled run", async () => {
    const controller = new AbortController();
    const cancelled = rig([failWith(new YokeError("PROVIDER_UNAVAILABLE", "503"))], {
      modelRetries: 1,
      sleep: async () => {
        controller.abort("stop");
        throw new YokeError("CANCELLED", "stop");
      },
    });
    expect((await cancelled.harness.start("t", { signal: controller.signal })).outcome?.status).toBe("cancelled");
    expect(cancelled.journal.appends.flat()).not.toContain("run.failed");
  });
});
