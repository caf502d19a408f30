// Issue 33: a refusal never runs a tool. A response the provider's content filter stopped
// with a tool call in flight (and one finished before it) has no executable part, whether
// the provider package finished the call or left it open.
import { afterEach, describe, expect, it } from "vitest";
import { toolCallsOf } from "@yoke/protocol";
import { createAiSdkProvider } from "./index.js";
import { MockLanguageModelV4, ask, collect, compatReplay, fixture, streamOf, usage, weatherTool, type CompatReplay } from "./__fixtures__/test-support.js";

let open: CompatReplay | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});

const request = ask("Weather in Paris and Tokyo?", { tools: [weatherTool] });

describe("a content filter with a tool call in flight, over the AI SDK", () => {
  it("over @ai-sdk/openai-compatible (finish_reason content_filter): both calls are withheld", async () => {
    open = await compatReplay([fixture("content-filter-tool-call.sse")]);
    const { parts, onStreamPart } = collect();
    const response = await open.provider.generate(request, { onStreamPart });
    expect(response.stopReason).toBe("content_filter");
    expect(toolCallsOf(response)).toEqual([]);
    expect(response.content).toEqual([
      { type: "text", text: "Checking both." },
      { type: "tool-call-withheld", toolCallId: "call_bridge_paris", toolName: "get_weather", rawArguments: '{"city":"Paris"}' },
      { type: "tool-call-withheld", toolCallId: "call_bridge_tokyo", toolName: "get_weather", rawArguments: '{"city":"To' },
    ]);
    expect(parts.at(-1)).toEqual({ type: "finish", response });
  });

  it("over a model that leaves the second call open at a content-filter finish: both calls are withheld", async () => {
    const model = new MockLanguageModelV4({
      provider: "mock.chat",
      modelId: "mock-model",
      doStream: async () =>
        streamOf([
          { type: "stream-start", warnings: [] },
          { type: "tool-input-start", id: "call_a", toolName: "get_weather" },
          { type: "tool-input-delta", id: "call_a", delta: '{"city":"Paris"}' },
          { type: "tool-input-end", id: "call_a" },
          { type: "tool-call", toolCallId: "call_a", toolName: "get_weather", input: '{"city":"Paris"}' },
          { type: "tool-input-start", id: "call_b", toolName: "get_weather" },
          { type: "tool-input-delta", id: "call_b", delta: '{"city":"To' },
          { type: "finish", finishReason: { unified: "content-filter", raw: "content_filter" }, usage: usage(30, 12) },
        ]),
    });
    const response = await createAiSdkProvider({ model }).generate(request);
    expect(response.stopReason).toBe("content_filter");
    expect(response.content).toEqual([
      { type: "tool-call-withheld", toolCallId: "call_a", toolName: "get_weather", rawArguments: '{"city":"Paris"}' },
      { type: "tool-call-withheld", toolCallId: "call_b", toolName: "get_weather", rawArguments: '{"city":"To' },
    ]);
  });
});
