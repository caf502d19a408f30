import { YokeError, parseYokeEvent } from "@yoke/protocol";
import { callTools, createScriptedModel, failWith, refuse, say, truncated } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { countingTool, readAll, rejectionOf, rig } from "./__fixtures__/harness-fixtures.js";
import { defineTool } from "./define-tool.js";
import type { CompletionVerdict, RunResult, WaitingRunResult } from "./harness-types.js";

const echo = (text: string) => callTools([{ name: "echo", args: { text } }]);

describe("stop reasons and limits", () => {
  it("ends budget_exhausted when the turns run out", async () => {
    const { harness, model, journal } = rig([echo("1"), echo("2")], { maxTurns: 2 });
    const { outcome, state } = await harness.start("t");
    model.assertConsumed();
    expect(outcome).toEqual({ status: "budget_exhausted", budget: "turns", limit: 2 });
    expect(state.turns).toBe(2);
    // The last results and the run's end share one transaction.
    expect(journal.appends.at(-1)).toEqual(["action.committed", "run.completed"]);
  });

  it("sends a failed completion check back to the model, then passes", async () => {
    const verdicts: CompletionVerdict[] = [
      { passed: false, reason: "tests fail: 2 of 5" },
      { passed: true, summary: "all green" },
    ];
    const { harness, model, journal } = rig(
      [
        say("done"),
        (request) => {
          const last = request.messages.at(-1)!;
          expect(last).toEqual({ role: "user", content: [{ type: "text", text: "tests fail: 2 of 5" }] });
          return say("fixed, done");
        },
      ],
      { checkCompletion: async () => verdicts.shift()! },
    );
    const { outcome, state } = await harness.start("t");
    model.assertConsumed();
    expect(outcome).toEqual({ status: "verified_success", summary: "all green" });
    expect(state.turns).toBe(2);
    // The check runs as a verifier (issue 15): verifier.started is journaled before it runs, its verdict with the gate's summary.
    expect(journal.appends).toContainEqual(["verifier.started"]);
    expect(journal.appends).toContainEqual(["verifier.finished", "completion.checked", "input.added", "turn.started", "context.compiled", "model.requested"]);
  });

  it("ends verification_failed when the check says not to retry", async () => {
    const { harness } = rig([say("done")], { checkCompletion: async () => ({ passed: false, reason: "wrong answer", retry: false }) });
    expect((await harness.start("t")).outcome).toEqual({ status: "verification_failed", reason: "wrong answer" });
  });

  it("ends verification_failed when a failed check has no turns left", async () => {
    const { harness, journal } = rig([say("done")], { maxTurns: 1, checkCompletion: async () => ({ passed: false, reason: "nope" }) });
    const { runId, outcome } = await harness.start("t");
    expect(outcome).toEqual({ status: "verification_failed", reason: "nope" });
    const checked = (await readAll(journal, runId)).map(parseYokeEvent).find((event) => event.type === "completion.checked");
    expect(checked?.type === "completion.checked" && checked.data).toMatchObject({ passed: false, reason: "nope" });
  });

  // Issue 15: a refusal no longer ends the run `refused` at once; it waits for a person
  // (`run.waiting`), and a person closing the wait ends it `refused` with the same reason.
  it("waits for a person on a refusal; closing the wait ends it refused with the refusal's words", async () => {
    const { harness, journal } = rig([refuse("I won't do that.")]);
    const waiting = (await harness.start("t")) as RunResult | WaitingRunResult;
    expect(waiting.outcome).toBeUndefined();
    expect(waiting.waiting).toEqual({ kind: "human", reason: "refusal", detail: "I won't do that.", approvals: [] });
    expect(journal.appends.at(-1)).toEqual(["run.waiting"]);
    expect((await harness.resume(waiting.runId, { close: "" })).outcome).toEqual({ status: "refused", reason: "I won't do that." });
  });

  it("waits with the refusal part's own words, not the text beside it", async () => {
    const { harness } = rig([
      {
        content: [
          { type: "text", text: "Let me look." },
          { type: "refusal", text: "I can't help with that." },
        ],
        stopReason: "refusal",
      },
    ]);
    const { state } = await harness.start("t");
    expect(state.waiting).toEqual({ kind: "refusal", reason: "I can't help with that.", turnId: state.currentTurnId });
  });

  it("never takes a refusal for an answer: whatever the stop reason, the run waits and the completion check never sees it", async () => {
    const seen: string[] = [];
    const { harness, model } = rig([{ content: [{ type: "refusal", text: "No." }], stopReason: "end_turn" }, say("unused")], {
      checkCompletion: async ({ response }) => {
        seen.push(response.stopReason);
        return { passed: true };
      },
    });
    const { state, outcome } = await harness.start("t");
    expect(outcome).toBeUndefined();
    expect(state.waiting?.kind).toBe("refusal");
    expect(seen).toEqual([]);
    expect(model.remaining).toBe(1);
  });

  it("waits for a person on a content filter stop (kind content_filter)", async () => {
    const { harness } = rig([{ content: [], stopReason: "content_filter" }]);
    const result = (await harness.start("t")) as RunResult | WaitingRunResult;
    expect(result.waiting).toEqual({ kind: "human", reason: "content_filter", detail: "the model stopped with content_filter", approvals: [] });
  });

  it("continues the same turn after max_tokens", async () => {
    const { harness, model, journal } = rig([
      truncated("The answer is"),
      (request) => {
        expect(request.messages.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "The answer is" }] });
        return say(" 42.");
      },
    ]);
    const { runId, state } = await harness.start("t");
    model.assertConsumed();
    expect(state.turns).toBe(1);
    expect(journal.appends.slice(1, 4)).toEqual([["model.responded"], ["context.compiled", "model.requested"], ["model.responded"]]);
    const turns = new Set(
      (await readAll(journal, runId))
        .map(parseYokeEvent)
        .flatMap((event) => (event.type === "model.requested" || event.type === "model.responded" ? [event.data.turnId] : [])),
    );
    expect(turns.size).toBe(1);
  });
});

describe("provider errors", () => {
  it("retries a retryable error, waiting what retry-after says, and journals each failed attempt", async () => {
    const waits: number[] = [];
    const { harness, model, journal } = rig(
      [
        failWith(new YokeError("PROVIDER_RATE_LIMITED", "slow down", { details: { retryAfterMs: 1234 } })),
        failWith(new YokeError("PROVIDER_UNAVAILABLE", "502")),
        say("done"),
      ],
      { sleep: async (ms) => void waits.push(ms) },
    );
    const { outcome } = await harness.start("t");
    model.assertConsumed();
    expect(outcome?.status).toBe("completed");
    expect(waits).toEqual([1234, 1000]);
    expect(journal.appends.slice(1, 4)).toEqual([["model.failed"], ["model.failed"], ["model.responded"]]);
  });

  it("propagates a non-retryable error; the run stays resumable and the request is not re-journaled", async () => {
    const first = rig([failWith(new YokeError("PROVIDER_REQUEST_INVALID", "bad request"))]);
    const error = await rejectionOf(first.harness.start("t", { runId: "run_flaky" }));
    expect(error.code).toBe("PROVIDER_REQUEST_INVALID");
    const state = await first.harness.getState("run_flaky");
    expect(state.phase).toBe("awaiting_response");
    expect(first.journal.appends.at(-1)).toEqual(["model.failed", "run.failed"]);

    const second = rig([say("done")], { journal: first.journal, idStart: 100 });
    const { outcome } = await second.harness.resume("run_flaky");
    expect(outcome?.status).toBe("completed");
    second.model.assertConsumed();
    expect(second.journal.appends[0]).toEqual(["model.responded"]);
  });

  it("propagates a retryable error once the retries are used up", async () => {
    const limited = () => failWith(new YokeError("PROVIDER_RATE_LIMITED", "slow down"));
    const { harness, model } = rig([limited(), limited()], { modelRetries: 1 });
    expect((await rejectionOf(harness.start("t"))).code).toBe("PROVIDER_RATE_LIMITED");
    model.assertConsumed();
  });

  it("rejects a response that breaks the ModelResponse contract with PROVIDER_RESPONSE_INVALID", async () => {
    const { harness } = rig([{ content: [{ type: "tool-call", toolName: "echo", toolCallId: "", arguments: {} }] }]);
    expect((await rejectionOf(harness.start("t"))).code).toBe("PROVIDER_RESPONSE_INVALID");
  });
});

describe("cancellation", () => {
  it("cancelled after the calls started: they get CANCELLED results, undispatched, in the same append as the end", async () => {
    const controller = new AbortController();
    const store = countingTool("store", "idempotent");
    const { harness, journal, model } = rig([callTools([{ name: "store", args: { key: "k" } }]), say("never asked")], {
      tools: [store.tool],
      onEvent: (event) => {
        if (event.type === "action.admitted") controller.abort("operator stop");
      },
    });
    const { outcome, state } = await harness.start("t", { signal: controller.signal });
    expect(outcome).toEqual({ status: "cancelled", reason: "operator stop" });
    expect(model.remaining).toBe(1);
    expect(store.calls).toEqual([]);
    // Not dispatched, so the effect certainly did not happen: failed, not uncertain.
    expect(journal.appends.at(-1)).toEqual(["action.failed", "run.completed"]);
    const tool = state.messages.at(-1);
    expect(tool?.role === "tool" && tool.content[0]!.result.error?.code).toBe("CANCELLED");
  });

  it("cancelled while a call runs: the handler sees its signal abort and the call still gets its result", async () => {
    const controller = new AbortController();
    const waits = defineTool({
      name: "waits",
      description: "Cancels the run, then waits for its signal.",
      input: z.object({}),
      sideEffect: "none",
      execute: (_input, { signal }) =>
        new Promise<string>((_resolve, reject) => {
          signal.addEventListener("abort", () => reject(new Error("stopped")));
          controller.abort("operator stop");
        }),
    });
    const { harness, journal } = rig([callTools([{ name: "waits" }])], { tools: [waits] });
    const { outcome, state } = await harness.start("t", { signal: controller.signal });
    expect(outcome?.status).toBe("cancelled");
    expect(journal.appends.at(-1)).toEqual(["action.failed", "run.completed"]);
    const tool = state.messages.at(-1);
    expect(tool?.role === "tool" && tool.content[0]!.result.error?.code).toBe("CANCELLED");
  });

  it("appends the cut call's model.failed CANCELLED and run.completed{cancelled} when cancelled while waiting for the model", async () => {
    const controller = new AbortController();
    const model = createScriptedModel([
      async () => {
        controller.abort("operator stop");
        return say("too late");
      },
    ]);
    const { harness, journal } = rig([], { provider: model });
    const { outcome } = await harness.start("t", { signal: controller.signal });
    expect(outcome).toEqual({ status: "cancelled", reason: "operator stop" });
    expect(journal.appends.at(-1)).toEqual(["model.failed", "run.completed"]);
  });

  it("does not create a run when already cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const { harness, journal } = rig([say("x")]);
    expect((await rejectionOf(harness.start("t", { signal: controller.signal }))).code).toBe("CANCELLED");
    expect(journal.appends).toEqual([]);
  });
});

describe("usage", () => {
  it("sums every usage figure a response reports, the uncached and total counts and server tool uses included, live and folded", async () => {
    const usage = {
      inputTokens: 100,
      outputTokens: 20,
      cacheReadTokens: 80,
      uncachedInputTokens: 20,
      totalTokens: 120,
      serverToolUse: { web_search_requests: 1 },
    };
    const { harness, journal } = rig([
      { ...echo("a"), usage },
      { ...say("done"), usage: { ...usage, serverToolUse: { web_search_requests: 2, web_fetch_requests: 1 } } },
    ]);
    const { runId, state } = await harness.start("t");
    const expected = {
      inputTokens: 200,
      outputTokens: 40,
      cacheReadTokens: 160,
      uncachedInputTokens: 40,
      totalTokens: 240,
      serverToolUse: { web_search_requests: 3, web_fetch_requests: 1 },
    };
    expect(state.usage).toEqual(expected);
    expect((await harness.getState(runId)).usage).toEqual(expected);
    const responded = (await readAll(journal, runId))
      .map(parseYokeEvent)
      .flatMap((event) => (event.type === "model.responded" ? [event.data.response.usage] : []));
    expect(responded[0]).toEqual(usage);
  });
});
