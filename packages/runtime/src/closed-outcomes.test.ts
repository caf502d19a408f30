import { parseYokeEvent, type VerifierV1, type VerifierVerdict, type YokeEvent } from "@yoke/protocol";
import { callTools, refuse, say, truncated, truncatedToolCall } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { countingTool, readAll, rig } from "./__fixtures__/harness-fixtures.js";
import type { RunResult, WaitingRunResult } from "./harness-types.js";

/** A verifier answering from a script, one verdict per run of it. */
function scriptedVerifier(id: string, verdicts: Omit<VerifierVerdict, "verifierId" | "kind">[], seen: string[] = []): VerifierV1 {
  return {
    specificationVersion: "v1",
    id,
    kind: "scripted",
    replaySafe: true,
    async verify(input) {
      seen.push(input.answer.text);
      const next = verdicts.shift();
      if (next === undefined) throw new Error(`verifier ${id} ran more often than scripted`);
      return { verifierId: id, kind: "scripted", ...next };
    },
  };
}

async function types(journal: Parameters<typeof readAll>[0], runId: string): Promise<YokeEvent[]> {
  return (await readAll(journal, runId)).map(parseYokeEvent);
}

type AnyResult = RunResult | WaitingRunResult;

/**
 * Issue 15, point 3: every outcome of the closed set is reached by a test here, by name:
 * verified_success, completed, verification_failed, refused, budget_exhausted, escalated,
 * cancelled. And every stop reason has its rule: end_turn is gated, max_tokens continues (up
 * to `maxTokensContinuations`), a tool call cut by max_tokens never runs, refusal and
 * content_filter wait for a person, pause continues, tool_use schedules.
 */
describe("the closed set of outcomes", () => {
  it("verified_success: every verifier passed, each journaled as started then finished", async () => {
    const { harness, model, journal } = rig([say("42")], { verifiers: [scriptedVerifier("tests", [{ passed: true, reason: "5 of 5 green" }])] });
    const { runId, outcome } = await harness.start("t");
    model.assertConsumed();
    expect(outcome).toEqual({ status: "verified_success", summary: "5 of 5 green" });
    const events = await types(journal, runId);
    const started = events.find((event) => event.type === "verifier.started");
    const finished = events.find((event) => event.type === "verifier.finished");
    expect(started?.type === "verifier.started" && started.data).toMatchObject({ verifierId: "tests", attempt: 1, replaySafe: true });
    expect(finished?.type === "verifier.finished" && finished.data.verdict).toEqual({
      verifierId: "tests",
      kind: "scripted",
      passed: true,
      reason: "5 of 5 green",
    });
    expect(journal.appends.slice(-2)).toEqual([["verifier.started"], ["verifier.finished", "completion.checked", "run.completed"]]);
  });

  it("completed: no verifier, so the answer is unverified", async () => {
    const { harness } = rig([say("42")]);
    expect((await harness.start("t")).outcome).toEqual({ status: "completed" });
  });

  it("verification_failed: the failure goes back to the model as a typed observation verifierRetries times, then the run ends", async () => {
    const seen: string[] = [];
    const verifier = scriptedVerifier(
      "tests",
      [
        { passed: false, reason: "2 of 5 fail", details: { exitCode: 1 } },
        { passed: false, reason: "1 of 5 fail", details: { exitCode: 1 } },
      ],
      seen,
    );
    const { harness, model, journal } = rig(
      [
        say("done"),
        (request) => {
          expect(request.messages.at(-1)).toEqual({
            role: "user",
            content: [{ type: "text", text: '[runtime] verifier tests (scripted) did not pass: 2 of 5 fail\ndetails: {"exitCode":1}' }],
          });
          return say("fixed");
        },
      ],
      { verifiers: verifier, verifierRetries: 1 },
    );
    const { runId, outcome } = await harness.start("t");
    model.assertConsumed();
    expect(seen).toEqual(["done", "fixed"]);
    expect(outcome).toEqual({ status: "verification_failed", reason: "1 of 5 fail" });
    const feedback = (await types(journal, runId)).filter((event) => event.type === "input.added");
    expect(feedback.map((event) => event.type === "input.added" && event.data.source)).toEqual(["verifier"]);
    const attempts = (await types(journal, runId)).flatMap((event) => (event.type === "verifier.started" ? [event.data.attempt] : []));
    expect(attempts).toEqual([1, 2]);
  });

  it("refused: a refusal waits for a person; closing the wait ends the run refused", async () => {
    const { harness, model } = rig([refuse("I won't.")]);
    const waiting = (await harness.start("t")) as AnyResult;
    expect(waiting.waiting).toEqual({ kind: "human", reason: "refusal", detail: "I won't.", approvals: [] });
    const closed = await harness.resume(waiting.runId, { close: "the task was out of scope" });
    model.assertConsumed();
    expect(closed.outcome).toEqual({ status: "refused", reason: "I won't. (closed: the task was out of scope)" });
  });

  it("budget_exhausted: the turn limit", async () => {
    const { harness } = rig([callTools([{ name: "echo", args: { text: "a" } }]), callTools([{ name: "echo", args: { text: "b" } }])], { maxTurns: 2 });
    expect((await harness.start("t")).outcome).toEqual({ status: "budget_exhausted", budget: "turns", limit: 2 });
  });

  it("escalated: a verifier that asks for a person makes the run wait (escalation); closing it ends escalated", async () => {
    const verifier = scriptedVerifier("review", [{ passed: false, reason: "needs a human reviewer", escalate: true }]);
    const { harness, journal } = rig([say("done")], { verifiers: [verifier] });
    const waiting = (await harness.start("t")) as AnyResult;
    expect(waiting.waiting).toEqual({ kind: "human", reason: "escalation", detail: "verifier review: needs a human reviewer", approvals: [] });
    expect(journal.appends.at(-1)).toEqual(["verifier.finished", "completion.checked", "run.waiting"]);
    expect((await harness.resume(waiting.runId, { close: "" })).outcome).toEqual({ status: "escalated", reason: "verifier review: needs a human reviewer" });
  });

  it("escalated: max_tokens past maxTokensContinuations in one turn", async () => {
    const { harness, model } = rig([truncated("a"), truncated("b"), truncated("c")], { maxTokensContinuations: 2 });
    const { outcome, state } = await harness.start("t");
    model.assertConsumed();
    expect(state.turns).toBe(1);
    expect(outcome?.status).toBe("escalated");
    expect(outcome?.status === "escalated" && outcome.reason).toContain("output token limit in 3 responses in a row");
  });

  it("cancelled: an interrupt's cancel lands at the next step, after the tool call in flight has its result", async () => {
    const store = countingTool("store", "idempotent");
    let harnessRef: { interrupt: (runId: string, options: { cancel: string }) => Promise<unknown> } | undefined;
    const { harness, journal, model } = rig([callTools([{ name: "store", args: { key: "k" } }]), callTools([{ name: "store", args: { key: "never" } }])], {
      tools: [store.tool],
      onEvent: (event) => {
        if (event.type === "action.admitted") void harnessRef!.interrupt(event.runId, { cancel: "the customer withdrew" });
      },
    });
    harnessRef = harness;
    const { runId, outcome } = await harness.start("t");
    expect(outcome).toEqual({ status: "cancelled", reason: "the customer withdrew" });
    expect(store.calls.map((call) => call.key)).toEqual(["k"]);
    // The cancel lands at the turn boundary, with the batch's results: the model is not asked again.
    expect(model.remaining).toBe(1);
    expect(journal.appends.at(-1)).toEqual(["action.committed", "interrupt.landed", "run.completed"]);
    const events = await types(journal, runId);
    // The call in flight was settled before the cancel landed.
    expect(events.findIndex((event) => event.type === "action.committed")).toBeLessThan(events.findIndex((event) => event.type === "interrupt.landed"));
  });
});

describe("the stop-condition contract, per stop reason", () => {
  it("end_turn is gated: the verifier sees the answer before any outcome", async () => {
    const seen: string[] = [];
    const { harness } = rig([say("the answer")], { verifiers: scriptedVerifier("v", [{ passed: true }], seen) });
    await harness.start("t");
    expect(seen).toEqual(["the answer"]);
  });

  it("max_tokens continues the same turn up to the limit, then the run ends escalated (never asks a 4th time by default)", async () => {
    const { harness, model } = rig([truncated("1"), truncated("2"), truncated("3"), truncated("4")]);
    const { outcome, state } = await harness.start("t");
    model.assertConsumed();
    expect(state.turns).toBe(1);
    expect(outcome?.status).toBe("escalated");
  });

  it("a tool call cut by max_tokens is never run", async () => {
    const store = countingTool("store", "idempotent");
    const { harness, model } = rig([truncatedToolCall("store", '{"ke'), say("gave up")], { tools: [store.tool] });
    expect((await harness.start("t")).outcome).toEqual({ status: "completed" });
    model.assertConsumed();
    expect(store.calls).toEqual([]);
  });

  it("refusal: resume(runId, { input }) lands the person's input (source operator) and the run goes on", async () => {
    const { harness, model, journal } = rig([
      refuse("I need to know which account."),
      (request) => {
        expect(request.messages.at(-1)).toEqual({ role: "user", content: [{ type: "text", text: "Use account 7." }] });
        return say("done with account 7");
      },
    ]);
    const waiting = (await harness.start("t")) as AnyResult;
    expect(waiting.outcome).toBeUndefined();
    // Resuming without an answer changes nothing: still waiting, the model is not asked.
    expect(((await harness.resume(waiting.runId)) as AnyResult).waiting?.kind).toBe("human");
    const done = await harness.resume(waiting.runId, { input: "Use account 7." });
    model.assertConsumed();
    expect(done.outcome).toEqual({ status: "completed" });
    const sources = (await types(journal, waiting.runId)).flatMap((event) => (event.type === "input.added" ? [event.data.source] : []));
    expect(sources).toEqual(["operator"]);
  });

  it("content_filter waits (kind content_filter) and a resume with input goes on; answering a run that does not wait is RUN_NOT_WAITING", async () => {
    const { harness, model } = rig([{ content: [], stopReason: "content_filter" }, say("rephrased")]);
    const waiting = (await harness.start("t")) as AnyResult;
    expect(waiting.state.waiting?.kind).toBe("content_filter");
    expect((await harness.resume(waiting.runId, { input: "Please rephrase." })).outcome).toEqual({ status: "completed" });
    model.assertConsumed();
    await expect(harness.resume(waiting.runId, { input: "again" })).rejects.toMatchObject({ code: "RUN_NOT_WAITING" });
  });

  it("pause continues the same turn", async () => {
    const { harness, model } = rig([{ content: [{ type: "text", text: "thinking" }], stopReason: "pause" }, say("done")]);
    const { outcome, state } = await harness.start("t");
    model.assertConsumed();
    expect(outcome).toEqual({ status: "completed" });
    expect(state.turns).toBe(1);
  });

  it("tool_use schedules the calls, then the next turn", async () => {
    const store = countingTool("store", "idempotent");
    const { harness } = rig([callTools([{ name: "store", args: { key: "a" } }]), say("done")], { tools: [store.tool] });
    const { outcome, state } = await harness.start("t");
    expect(outcome).toEqual({ status: "completed" });
    expect(store.calls.map((call) => call.key)).toEqual(["a"]);
    expect(state.turns).toBe(2);
  });
});
