import { afterEach, describe, expect, it } from "vitest";
import { ask, collect, fixture, rejection, replay, weatherTool, type Replay } from "./__fixtures__/test-support.js";

let current: Replay | undefined;
async function open(...args: Parameters<typeof replay>): Promise<Replay> {
  current = await replay(...args);
  return current;
}
afterEach(async () => {
  await current?.server.close();
  current = undefined;
});

const chat = { api: "chat" as const, model: "gpt-4.1-mini" };

describe("Chat Completions over the real SDK and recorded wire traffic", () => {
  it("streams a text answer with usage from the final chunk", async () => {
    const { server, provider } = await open([fixture("chat-text.sse")], chat);
    const { parts, onStreamPart } = collect();
    const response = await provider.generate(
      { messages: [{ role: "system", content: "Be brief." }, ...ask("Say hello").messages], tools: [], temperature: 0.2 },
      { onStreamPart },
    );
    expect(response).toEqual({
      id: "chatcmpl-text01",
      provider: "openai",
      model: "gpt-4.1-mini-2025-04-14",
      content: [{ type: "text", text: "Hello! How can I help?" }],
      stopReason: "end_turn",
      rawStopReason: "stop",
      usage: { inputTokens: 12, outputTokens: 8, cacheReadTokens: 0, reasoningTokens: 0, uncachedInputTokens: 12, totalTokens: 20 },
      providerMetadata: { openai: { api: "chat" } },
    });
    expect(parts.map((part) => part.type)).toEqual(["text-delta", "text-delta", "finish"]);
    expect(server.requests[0]!.path).toBe("/v1/chat/completions");
    expect(server.requests[0]!.body).toMatchInlineSnapshot(`
      {
        "messages": [
          {
            "content": "Be brief.",
            "role": "system",
          },
          {
            "content": "Say hello",
            "role": "user",
          },
        ],
        "model": "gpt-4.1-mini",
        "stream": true,
        "stream_options": {
          "include_usage": true,
        },
        "temperature": 0.2,
      }
    `);
  });

  it("assembles parallel tool calls from indexed deltas and sends them back paired with results", async () => {
    const { server, provider } = await open([fixture("chat-parallel-tool-calls.sse"), fixture("chat-text.sse")], chat);
    const first = await provider.generate(ask("Weather in Paris and Tokyo?", { tools: [weatherTool] }));
    expect(first.stopReason).toBe("tool_use");
    expect(first.usage).toMatchObject({ cacheReadTokens: 32 });
    expect(first.content).toEqual([
      { type: "tool-call", toolCallId: "call_paris", toolName: "get_weather", rawArguments: '{"city":"Paris"}', arguments: { city: "Paris" } },
      { type: "tool-call", toolCallId: "call_tokyo", toolName: "get_weather", rawArguments: '{"city":"Tokyo"}', arguments: { city: "Tokyo" } },
    ]);
    const result = (text: string) => ({
      status: "ok" as const,
      content: [{ type: "text" as const, text }],
      timing: { startedAt: 0, endedAt: 1, durationMs: 1 },
    });
    await provider.generate({
      messages: [
        ...ask("Weather in Paris and Tokyo?").messages,
        { role: "assistant", content: first.content },
        {
          role: "tool",
          content: [
            { type: "tool-result", toolCallId: "call_paris", toolName: "get_weather", result: result("sunny") },
            {
              type: "tool-result",
              toolCallId: "call_tokyo",
              toolName: "get_weather",
              result: { ...result(""), status: "error", error: { code: "TOOL_TIMEOUT", message: "no answer" } },
            },
          ],
        },
      ],
      tools: [weatherTool],
    });
    expect((server.requests[1]!.body as { messages: unknown[] }).messages.slice(1)).toMatchInlineSnapshot(`
      [
        {
          "content": null,
          "role": "assistant",
          "tool_calls": [
            {
              "function": {
                "arguments": "{"city":"Paris"}",
                "name": "get_weather",
              },
              "id": "call_paris",
              "type": "function",
            },
            {
              "function": {
                "arguments": "{"city":"Tokyo"}",
                "name": "get_weather",
              },
              "id": "call_tokyo",
              "type": "function",
            },
          ],
        },
        {
          "content": "sunny",
          "role": "tool",
          "tool_call_id": "call_paris",
        },
        {
          "content": "TOOL_TIMEOUT: no answer",
          "role": "tool",
          "tool_call_id": "call_tokyo",
        },
      ]
    `);
  });

  it("maps length to max_tokens and a refusal to a refusal part (never text), rawStopReason the finish_reason", async () => {
    const { provider } = await open([fixture("chat-max-tokens.sse"), fixture("chat-refusal.sse")], chat);
    expect(await provider.generate(ask("List"))).toMatchObject({ stopReason: "max_tokens", rawStopReason: "length" });
    const refused = await provider.generate(ask("Something harmful"));
    expect(refused).toMatchObject({ stopReason: "refusal", rawStopReason: "stop" });
    expect(refused.content).toEqual([{ type: "refusal", text: "I'm sorry, I can't help with that." }]);
  });

  it("rejects a stream that ends before a finish reason with PROVIDER_STREAM_CUT", async () => {
    const { provider } = await open([fixture("chat-stream-cut.sse", { cut: true })], chat);
    expect((await rejection(provider.generate(ask("hi")))).code).toBe("PROVIDER_STREAM_CUT");
  });

  it("warns that reasoning items cannot travel over Chat Completions", async () => {
    const { provider } = await open([fixture("chat-text.sse")], chat);
    const response = await provider.generate({
      messages: [
        ...ask("hi").messages,
        { role: "assistant", content: [{ type: "reasoning", text: "…", providerMetadata: { openai: { itemId: "rs_1" } } }] },
        ...ask("again").messages,
      ],
      tools: [],
    });
    expect(response.warnings).toEqual(["Chat Completions cannot carry reasoning items across turns; they were not sent"]);
  });
});
