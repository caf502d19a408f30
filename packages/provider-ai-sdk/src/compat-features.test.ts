// Issue 11 items 4 and 6 over a real provider package: @ai-sdk/openai-compatible's chat model
// against the replay server, on the Chat Completions wire.
import { afterEach, describe, expect, it } from "vitest";
import { toolCallsOf } from "@yoke/protocol";
import { ask, collect, compatReplay, fixture, rejection, weatherTool, type CompatReplay } from "./__fixtures__/test-support.js";

let open: CompatReplay | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});
const replay = async (...args: Parameters<typeof compatReplay>) => (open = await compatReplay(...args));

describe("the bridge's request features over @ai-sdk/openai-compatible", () => {
  it("sends stop sequences as `stop` and a strict tool with `strict: true`, and reports uncached and total tokens", async () => {
    const { server, provider } = await replay([fixture("text.sse")], { supportsStructuredOutputs: true });
    const response = await provider.generate(ask("Say hello.", { stopSequences: ["END"], tools: [{ ...weatherTool, strict: true }] }));
    const body = server.requests[0]!.body as { stop?: unknown; tools?: { function: { name: string; strict?: boolean } }[] };
    expect(body.stop).toEqual(["END"]);
    expect(body.tools?.map((tool) => [tool.function.name, tool.function.strict])).toEqual([["get_weather", true]]);
    // 14 prompt tokens, 8 of them cached: 6 uncached; 14 + 5 output = 19.
    expect(response.usage).toMatchObject({ inputTokens: 14, outputTokens: 5, cacheReadTokens: 8, uncachedInputTokens: 6, totalTokens: 19 });
  });

  it("refuses a strict tool for a model that declares no structured outputs, without a request", async () => {
    const { server, provider } = await replay([fixture("text.sse")]);
    expect((await rejection(provider.generate(ask("Say hello.", { tools: [{ ...weatherTool, strict: true }] })))).code).toBe("PROVIDER_ADMISSION_REJECTED");
    expect(server.requests).toHaveLength(0);
  });

  it("returns a call cut by finish_reason length as tool-call-truncated (never a call), and never sends it back", async () => {
    const { server, provider } = await replay([fixture("max-tokens-tool-call.sse"), fixture("text.sse")]);
    const stream = collect();
    const request = ask("Weather in Paris and Tokyo?", { tools: [weatherTool] });
    const response = await provider.generate(request, { onStreamPart: stream.onStreamPart });
    expect(response.content).toEqual([
      { type: "text", text: "Checking both." },
      { type: "tool-call", toolCallId: "call_bridge_paris", toolName: "get_weather", rawArguments: '{"city":"Paris"}', arguments: { city: "Paris" } },
      { type: "tool-call-truncated", toolCallId: "call_bridge_tokyo", toolName: "get_weather", rawArguments: '{"city":"To' },
    ]);
    expect(response).toMatchObject({
      stopReason: "max_tokens",
      rawStopReason: "length",
      usage: { inputTokens: 40, outputTokens: 24, uncachedInputTokens: 40, totalTokens: 64 },
    });
    expect(toolCallsOf(response)).toHaveLength(1);
    expect(stream.parts.filter((part) => part.type === "tool-call-truncated")).toEqual([{ type: "tool-call-truncated", toolCallId: "call_bridge_tokyo" }]);

    // The next request of the same turn: the complete call goes back with its result, the cut one not at all.
    const timing = { startedAt: 0, endedAt: 1, durationMs: 1 };
    await provider.generate({
      ...request,
      messages: [
        ...request.messages,
        { role: "assistant", content: response.content },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "call_bridge_paris",
              toolName: "get_weather",
              result: { status: "ok", content: [{ type: "text", text: "18°C" }], timing },
            },
          ],
        },
      ],
    });
    const messages = (server.requests[1]!.body as { messages: { role: string; tool_calls?: { id: string }[]; tool_call_id?: string }[] }).messages;
    expect(messages.flatMap((message) => message.tool_calls?.map((call) => call.id) ?? [])).toEqual(["call_bridge_paris"]);
    expect(messages.filter((message) => message.role === "tool").map((message) => message.tool_call_id)).toEqual(["call_bridge_paris"]);
  });

  it("reports a Chat Completions refusal as the provider package does: text, and a content-filter finish (the specification has no refusal part)", async () => {
    const { provider } = await replay([fixture("refusal.sse")]);
    const response = await provider.generate(ask("Help me with something harmful."));
    expect(response).toMatchObject({
      content: [{ type: "text", text: "I'm sorry, I can't help with that." }],
      stopReason: "content_filter",
      rawStopReason: "stop",
    });
  });

  it("hands a declared server tool to the provider package as a provider tool; one it does not support is not sent, and its warning comes back", async () => {
    const { server, provider } = await replay([fixture("text.sse")], { capabilities: { serverTools: ["openai.web_search"] } });
    const response = await provider.generate(ask("Say hello.", { serverTools: [{ provider: "local.chat", type: "openai.web_search", name: "web_search" }] }));
    expect((server.requests[0]!.body as { tools?: unknown[] }).tools ?? []).toEqual([]);
    expect(response.warnings).toEqual(["provider-defined tool openai.web_search is not supported by the model"]);
  });
});
