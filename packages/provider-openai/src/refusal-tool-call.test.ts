// Issue 33: a refusal never runs a tool. A response a content filter stopped with a function
// call in flight (and one finished before it) has no executable part on either API.
import { describe, expect, it } from "vitest";
import { toolCallsOf, type ModelResponse } from "@yoke/protocol";
import { ask, collect, fixture, replayPerTest, weatherTool } from "./__fixtures__/test-support.js";

const open = replayPerTest();

const chat = { api: "chat" as const, model: "gpt-4.1-mini" };
const withheld = (toolCallId: string, rawArguments: string, itemId?: string) => ({
  type: "tool-call-withheld",
  toolCallId,
  toolName: "get_weather",
  rawArguments,
  ...(itemId === undefined ? {} : { providerMetadata: { openai: { itemId } } }),
});
const request = ask("Weather in Paris and Tokyo?", { tools: [weatherTool] });

function expectNothingExecutable(response: ModelResponse): void {
  expect(response.stopReason).toBe("content_filter");
  expect(toolCallsOf(response)).toEqual([]);
}

describe("a content filter with a function call in flight, Responses API (incomplete:content_filter)", () => {
  for (const seed of [undefined, 1, 2, 3]) {
    it(`streamed (split seed ${seed ?? "none"}): both calls are withheld`, async () => {
      const { provider } = await open([fixture("content-filter-tool-call.sse")], {}, seed === undefined ? {} : { seed });
      const { parts, onStreamPart } = collect();
      const response = await provider.generate(request, { onStreamPart });
      expectNothingExecutable(response);
      expect(response.rawStopReason).toBe("incomplete:content_filter");
      expect(response.content).toEqual([withheld("call_paris", '{"city":"Paris"}', "fc_filter_01"), withheld("call_tokyo", '{"city":"To', "fc_filter_02")]);
      expect(parts.at(-1)).toEqual({ type: "finish", response });
    });
  }

  it("whole (stream: false): both calls are withheld", async () => {
    const { provider } = await open([fixture("json-content-filter-tool-call.json")], { stream: false });
    const response = await provider.generate(request);
    expectNothingExecutable(response);
    expect(response.content).toEqual([withheld("call_paris", '{"city":"Paris"}', "fc_filter_01"), withheld("call_tokyo", '{"city":"To', "fc_filter_02")]);
  });

  it("never sends a withheld call back as a function_call", async () => {
    const { server, provider } = await open([fixture("text.sse")]);
    await provider.generate({
      messages: [
        ...request.messages,
        { role: "assistant", content: [withheld("call_paris", '{"city":"Paris"}', "fc_filter_01") as never] },
        ...ask("Go on").messages,
      ],
      tools: [weatherTool],
    });
    expect(JSON.stringify(server.requests[0]!.body)).not.toContain("call_paris");
  });
});

describe("a content filter with a tool call in flight, Chat Completions (finish_reason content_filter)", () => {
  for (const seed of [undefined, 1, 2, 3]) {
    it(`streamed (split seed ${seed ?? "none"}): both calls are withheld`, async () => {
      const { provider } = await open([fixture("chat-content-filter-tool-call.sse")], chat, seed === undefined ? {} : { seed });
      const { parts, onStreamPart } = collect();
      const response = await provider.generate(request, { onStreamPart });
      expectNothingExecutable(response);
      expect(response.rawStopReason).toBe("content_filter");
      expect(response.content).toEqual([withheld("call_paris", '{"city":"Paris"}'), withheld("call_tokyo", '{"city":"To')]);
      expect(parts.at(-1)).toEqual({ type: "finish", response });
    });
  }

  it("whole (stream: false): both calls are withheld", async () => {
    const { provider } = await open([fixture("chat-json-content-filter-tool-call.json")], { ...chat, stream: false });
    const response = await provider.generate(request);
    expectNothingExecutable(response);
    expect(response.content).toEqual([withheld("call_paris", '{"city":"Paris"}'), withheld("call_tokyo", '{"city":"To')]);
  });

  it("never sends a withheld call back as a tool call", async () => {
    const { server, provider } = await open([fixture("chat-text.sse")], chat);
    await provider.generate({
      messages: [...request.messages, { role: "assistant", content: [withheld("call_paris", '{"city":"Paris"}') as never] }, ...ask("Go on").messages],
      tools: [weatherTool],
    });
    expect(JSON.stringify(server.requests[0]!.body)).not.toContain("call_paris");
  });
});
