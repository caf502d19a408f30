// The bridge over a real provider package: @ai-sdk/openai-compatible's chat model, pointed at
// a replay server serving recorded Chat Completions wire traffic.
import { afterEach, describe, expect, it } from "vitest";
import type { ModelRequest } from "@yoke/protocol";
import { ask, collect, compatReplay, fixture, rejection, weatherTool, type CompatReplay } from "./__fixtures__/test-support.js";

let open: CompatReplay | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});
const replay = async (...args: Parameters<typeof compatReplay>) => (open = await compatReplay(...args));

const conversation: ModelRequest = {
  messages: [
    { role: "system", content: "You are terse." },
    { role: "user", content: [{ type: "text", text: "Weather in Paris and in Atlantis?" }] },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Checking." },
        { type: "tool-call", toolCallId: "call_1", toolName: "get_weather", rawArguments: '{"city":"Paris"}', arguments: { city: "Paris" } },
        { type: "tool-call", toolCallId: "call_2", toolName: "get_weather", rawArguments: '{"city":"Atlantis"}', arguments: { city: "Atlantis" } },
      ],
    },
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "call_1",
          toolName: "get_weather",
          result: { status: "ok", content: [{ type: "text", text: "18°C, cloudy" }], timing: { startedAt: 0, endedAt: 1, durationMs: 1 } },
        },
        {
          type: "tool-result",
          toolCallId: "call_2",
          toolName: "get_weather",
          result: {
            status: "error",
            content: [],
            error: { code: "TOOL_FAILED", message: "no such city" },
            timing: { startedAt: 0, endedAt: 1, durationMs: 1 },
          },
        },
      ],
    },
  ],
  tools: [weatherTool],
  toolChoice: "auto",
  maxOutputTokens: 512,
  temperature: 0.2,
  providerOptions: { local: { user: "user-42" }, "ai-sdk": { seed: 7 } },
};

describe("the bridge over @ai-sdk/openai-compatible", () => {
  it("sends the conversation, tools, tool results, limits and pass-through provider options as Chat Completions", async () => {
    const { server, provider } = await replay([fixture("text.sse")]);
    await provider.generate(conversation);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.path).toBe("/v1/chat/completions");
    expect(server.requests[0]!.body).toMatchInlineSnapshot(`
      {
        "max_tokens": 512,
        "messages": [
          {
            "content": "You are terse.",
            "role": "system",
          },
          {
            "content": "Weather in Paris and in Atlantis?",
            "role": "user",
          },
          {
            "content": "Checking.",
            "role": "assistant",
            "tool_calls": [
              {
                "function": {
                  "arguments": "{"city":"Paris"}",
                  "name": "get_weather",
                },
                "id": "call_1",
                "type": "function",
              },
              {
                "function": {
                  "arguments": "{"city":"Atlantis"}",
                  "name": "get_weather",
                },
                "id": "call_2",
                "type": "function",
              },
            ],
          },
          {
            "content": "18°C, cloudy",
            "role": "tool",
            "tool_call_id": "call_1",
          },
          {
            "content": "TOOL_FAILED: no such city",
            "role": "tool",
            "tool_call_id": "call_2",
          },
        ],
        "model": "qwen3-8b-instruct",
        "seed": 7,
        "stream": true,
        "stream_options": {
          "include_usage": true,
        },
        "temperature": 0.2,
        "tool_choice": "auto",
        "tools": [
          {
            "function": {
              "description": "Current weather for a city.",
              "name": "get_weather",
              "parameters": {
                "additionalProperties": false,
                "properties": {
                  "city": {
                    "type": "string",
                  },
                },
                "required": [
                  "city",
                ],
                "type": "object",
              },
            },
            "type": "function",
          },
        ],
        "user": "user-42",
      }
    `);
  });

  it("asks for a JSON-schema response when the model declares structured outputs", async () => {
    const { server, provider } = await replay([fixture("text.sse")], { supportsStructuredOutputs: true });
    expect(provider.capabilities.structuredOutput).toBe("json-schema");
    const schema = { type: "object", properties: { greeting: { type: "string" } }, required: ["greeting"], additionalProperties: false };
    await provider.generate(ask("Greet me as JSON.", { providerOptions: { "ai-sdk": { structuredOutput: { name: "greeting", schema } } } }));
    expect((server.requests[0]!.body as { response_format?: unknown }).response_format).toMatchInlineSnapshot(`
      {
        "json_schema": {
          "name": "greeting",
          "schema": {
            "additionalProperties": false,
            "properties": {
              "greeting": {
                "type": "string",
              },
            },
            "required": [
              "greeting",
            ],
            "type": "object",
          },
          "strict": true,
        },
        "type": "json_schema",
      }
    `);
  });

  it("normalizes a streamed text answer: id, model, usage with cached input, raw stop reason, request id", async () => {
    const { provider } = await replay([fixture("text.sse", { headers: { "x-request-id": "req_bridge_ok" } })]);
    const stream = collect();
    const response = await provider.generate(ask("Say hello."), { onStreamPart: stream.onStreamPart });
    expect(response).toMatchObject({
      id: "chatcmpl-bridge-text",
      provider: "local.chat",
      model: "qwen3-8b-instruct",
      content: [{ type: "text", text: "Héllo, ça va — 你好 from the bridge 👋." }],
      stopReason: "end_turn",
      rawStopReason: "stop",
      usage: { inputTokens: 14, outputTokens: 5, cacheReadTokens: 8 },
    });
    expect(response.providerMetadata?.["ai-sdk"]).toMatchObject({ finishReason: "stop", requestId: "req_bridge_ok" });
    expect(response.requestId).toBe("req_bridge_ok");
    expect(stream.parts.filter((part) => part.type === "text-delta").map((part) => (part as { text: string }).text)).toEqual([
      "Héllo, ça va",
      " — 你好 from the bridge 👋.",
    ]);
  });

  it("keeps reasoning as its own part, counts reasoning tokens and maps length to max_tokens", async () => {
    const { provider } = await replay([fixture("reasoning.sse")]);
    const stream = collect();
    const response = await provider.generate(ask("Say hi."), { onStreamPart: stream.onStreamPart });
    expect(response.content).toEqual([
      { type: "reasoning", text: "The user wants a greeting." },
      { type: "text", text: "Hi!" },
    ]);
    expect(response.stopReason).toBe("max_tokens");
    expect(response.rawStopReason).toBe("length");
    expect(response.usage).toMatchObject({ inputTokens: 9, outputTokens: 16, reasoningTokens: 12 });
    expect(stream.parts.filter((part) => part.type === "reasoning-delta")).toHaveLength(2);
  });

  it("returns parallel tool calls in order with parsed arguments and tool-call stream parts", async () => {
    const { provider } = await replay([fixture("parallel-tool-calls.sse")]);
    const stream = collect();
    const response = await provider.generate(ask("Weather in Paris and Tokyo?", { tools: [weatherTool] }), { onStreamPart: stream.onStreamPart });
    expect(response.content).toEqual([
      { type: "tool-call", toolCallId: "call_bridge_paris", toolName: "get_weather", rawArguments: '{"city":"Paris"}', arguments: { city: "Paris" } },
      { type: "tool-call", toolCallId: "call_bridge_tokyo", toolName: "get_weather", rawArguments: '{"city":"Tokyo"}', arguments: { city: "Tokyo" } },
    ]);
    const started = stream.parts.filter((part) => part.type === "tool-call-start");
    const ended = stream.parts.filter((part) => part.type === "tool-call-end");
    expect(started.map((part) => (part as { toolCallId: string }).toolCallId)).toEqual(["call_bridge_paris", "call_bridge_tokyo"]);
    expect(ended).toHaveLength(2);
    const deltas = (id: string) =>
      stream.parts.flatMap((part) => (part.type === "tool-call-delta" && part.toolCallId === id ? [part.argumentsDelta] : [])).join("");
    expect(deltas("call_bridge_paris")).toBe('{"city":"Paris"}');
    expect(deltas("call_bridge_tokyo")).toBe('{"city":"Tokyo"}');
  });

  it("rejects a 429 as a retryable PROVIDER_RATE_LIMITED with the wait and the request id", async () => {
    const { server, provider } = await replay([fixture("error-429.json")]);
    const error = await rejection(provider.generate(ask("Say hello.")));
    expect(error).toMatchObject({ code: "PROVIDER_RATE_LIMITED", retryable: true });
    expect(error.details).toMatchObject({ status: 429, retryAfterMs: 3000, requestId: "req_bridge_rate", provider: "local.chat" });
    expect(server.requests).toHaveLength(1);
  });

  it("rejects a 400 (context length) as PROVIDER_REQUEST_INVALID, not retryable, with its type and request id", async () => {
    const { provider } = await replay([fixture("error-400.json")]);
    const error = await rejection(provider.generate(ask("Say hello.")));
    expect(error).toMatchObject({ code: "PROVIDER_REQUEST_INVALID", retryable: false });
    expect(error.details).toMatchObject({ status: 400, requestId: "req_bridge_invalid" });
  });

  it("rejects an error event inside a 200 stream by its type, with the request id of the 200", async () => {
    const { provider } = await replay([fixture("error-event.sse", { headers: { "x-request-id": "req_bridge_stream_error" } })]);
    const stream = collect();
    const error = await rejection(provider.generate(ask("Say hello."), { onStreamPart: stream.onStreamPart }));
    expect(error).toMatchObject({ code: "PROVIDER_UNAVAILABLE", retryable: true });
    expect(error.details).toMatchObject({ type: "server_error", requestId: "req_bridge_stream_error" });
    expect(stream.parts.filter((part) => part.type === "finish")).toEqual([]);
  });

  it("classifies an in-stream error like the same error as a status: a spent quota inside a 200 is never retryable", async () => {
    const { provider } = await replay([fixture("errors/insufficient-quota.chat-event.sse", { headers: { "x-request-id": "req_bridge_quota" } })]);
    const error = await rejection(provider.generate(ask("Say hello.")));
    expect(error).toMatchObject({ code: "PROVIDER_RATE_LIMITED", retryable: false });
    expect(error.details).toMatchObject({ type: "insufficient_quota", kind: "quota", requestId: "req_bridge_quota" });
  });

  it("rejects a connection cut after the 200 as PROVIDER_STREAM_CUT with the request id of the 200", async () => {
    const { provider } = await replay([fixture("stream-cut.sse", { cut: true, headers: { "x-request-id": "req_bridge_cut" } })]);
    const error = await rejection(provider.generate(ask("Say hello.")));
    expect(error).toMatchObject({ code: "PROVIDER_STREAM_CUT", retryable: true });
    expect(error.details.requestId).toBe("req_bridge_cut");
  });

  it("rejects a stream that ends cleanly without a finish reason as PROVIDER_STREAM_CUT", async () => {
    const { provider } = await replay([fixture("stream-cut.sse")]);
    const error = await rejection(provider.generate(ask("Say hello.")));
    expect(error).toMatchObject({ code: "PROVIDER_STREAM_CUT", retryable: true });
  });

  it("calls doGenerate when streaming is off and returns the same response", async () => {
    const body = {
      id: "chatcmpl-bridge-json",
      object: "chat.completion",
      created: 1764547200,
      model: "qwen3-8b-instruct",
      choices: [{ index: 0, message: { role: "assistant", content: "Hello from the bridge." }, finish_reason: "stop" }],
      usage: { prompt_tokens: 14, completion_tokens: 5, total_tokens: 19, prompt_tokens_details: { cached_tokens: 8 } },
    };
    const { server, provider } = await replay([{ body, headers: { "x-request-id": "req_bridge_json" } }], { stream: false });
    const stream = collect();
    const response = await provider.generate(ask("Say hello."), { onStreamPart: stream.onStreamPart });
    expect((server.requests[0]!.body as { stream?: boolean }).stream).toBeUndefined();
    expect(response).toMatchObject({
      id: "chatcmpl-bridge-json",
      content: [{ type: "text", text: "Hello from the bridge." }],
      stopReason: "end_turn",
      usage: { inputTokens: 14, outputTokens: 5, cacheReadTokens: 8 },
    });
    expect(response.providerMetadata?.["ai-sdk"]).toMatchObject({ requestId: "req_bridge_json" });
    expect(stream.parts.map((part) => part.type)).toEqual(["text-delta", "finish"]);
  });
});
