// Issue 33, item 1: a refusal never runs a tool. The adapter here breaks the rule on purpose
// (executable `tool-call` parts under a refusal stop reason), as a third-party one might: the
// runtime must still run nothing, journal the calls as withheld, and wait for a person.
import { parseYokeEvent, type ModelRequest, type ModelResponse, type ProviderAdapterV1, type StopReason } from "@yoke/protocol";
import { createScriptedModel } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { countingTool, readAll, rig } from "./__fixtures__/harness-fixtures.js";
import { generateWithRetry } from "./loop-blocks.js";
import type { RunResult, WaitingRunResult } from "./harness-types.js";

/** An adapter that answers each call with the next response verbatim, recording the requests. */
function rawAdapter(responses: ModelResponse[]): ProviderAdapterV1 & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    ...createScriptedModel([]),
    requests,
    generate: async (request) => {
      requests.push(structuredClone(request));
      const next = responses.shift();
      if (next === undefined) throw new Error("no response left");
      return next;
    },
  };
}

const refusedWithCalls = (stopReason: StopReason): ModelResponse => ({
  provider: "third-party",
  model: "m-1",
  stopReason,
  rawStopReason: stopReason,
  usage: { inputTokens: 10, outputTokens: 5 },
  content: [
    { type: "tool-call", toolCallId: "call_1", toolName: "store", rawArguments: '{"key":"a"}', arguments: { key: "a" } },
    { type: "tool-call", toolCallId: "call_2", toolName: "store", rawArguments: '{"key":"b"}', arguments: { key: "b" } },
  ],
});

describe("a refused response with tool calls", () => {
  for (const stopReason of ["refusal", "content_filter"] as const) {
    it(`runs no tool, journals the calls as withheld and waits for a person (${stopReason})`, async () => {
      const { tool, calls } = countingTool("store", "irreversible");
      const provider = rawAdapter([refusedWithCalls(stopReason), { ...refusedWithCalls("end_turn"), content: [{ type: "text", text: "ok" }] }]);
      const { harness, journal } = rig([], { provider, tools: [tool] });
      const result = (await harness.start("store a and b")) as RunResult | WaitingRunResult;
      expect(calls).toHaveLength(0);
      expect(result.outcome).toBeUndefined();
      expect(result.waiting).toMatchObject({ kind: "human", reason: stopReason });
      expect(journal.appends.at(-1)).toEqual(["run.waiting"]);
      const events = (await readAll(journal, result.runId)).map(parseYokeEvent);
      expect(events.filter((event) => event.type.startsWith("action.") || event.type.startsWith("tool."))).toEqual([]);
      const responded = events.find((event) => event.type === "model.responded");
      expect(responded?.type === "model.responded" && responded.data.response.content).toEqual([
        { type: "tool-call-withheld", toolCallId: "call_1", toolName: "store", rawArguments: '{"key":"a"}' },
        { type: "tool-call-withheld", toolCallId: "call_2", toolName: "store", rawArguments: '{"key":"b"}' },
      ]);

      // A person answers: the model is asked again, its withheld calls are still not calls, and nothing ran.
      const resumed = await harness.resume(result.runId, { input: "They are my own keys." });
      expect(resumed.outcome).toEqual({ status: "completed" });
      expect(calls).toHaveLength(0);
      const history = provider.requests.at(-1)!.messages.flatMap((message) => (message.role === "assistant" ? message.content : []));
      expect(history.filter((part) => part.type === "tool-call")).toEqual([]);
    });
  }

  it("ends refused when the person closes the wait, still having run nothing", async () => {
    const { tool, calls } = countingTool("store", "none");
    const provider = rawAdapter([refusedWithCalls("refusal")]);
    const { harness } = rig([], { provider, tools: [tool] });
    const { runId } = await harness.start("t");
    expect((await harness.resume(runId, { close: "" })).outcome).toEqual({ status: "refused", reason: "the model stopped with refusal" });
    expect(calls).toHaveLength(0);
  });
});

describe("generateWithRetry, the custom loop's model call", () => {
  it("hands a custom loop the calls of a refused response withheld, so acting on its tool calls runs nothing", async () => {
    const provider = rawAdapter([refusedWithCalls("content_filter")]);
    const response = await generateWithRetry(provider, { messages: [{ role: "user", content: [{ type: "text", text: "t" }] }], tools: [] });
    expect(response.content.map((part) => part.type)).toEqual(["tool-call-withheld", "tool-call-withheld"]);
  });
});
