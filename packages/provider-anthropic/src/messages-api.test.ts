import { afterEach, describe, expect, it } from "vitest";
import type { ModelRequest } from "@yoke/protocol";
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

const ok = (text: string) => ({ status: "ok" as const, content: [{ type: "text" as const, text }], timing: { startedAt: 0, endedAt: 1, durationMs: 1 } });

describe("Messages API over the real SDK and recorded wire traffic", () => {
  it("streams a text answer", async () => {
    const { server, provider } = await open([fixture("text.sse")]);
    const { parts, onStreamPart } = collect();
    const response = await provider.generate(
      { messages: [{ role: "system", content: "Be brief." }, ...ask("Say hello").messages], tools: [], temperature: 0 },
      { onStreamPart },
    );
    expect(response).toEqual({
      id: "msg_text_01",
      provider: "anthropic",
      model: "claude-sonnet-4-6",
      content: [{ type: "text", text: "Hello! How can I help?" }],
      stopReason: "end_turn",
      rawStopReason: "end_turn",
      usage: { inputTokens: 25, outputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0, uncachedInputTokens: 25, totalTokens: 37 },
    });
    expect(parts.map((part) => part.type)).toEqual(["text-delta", "text-delta", "finish"]);
    expect(server.requests[0]!.path).toBe("/v1/messages");
    expect(server.requests[0]!.headers["x-stainless-retry-count"]).toBe("0");
    expect(server.requests[0]!.body).toMatchInlineSnapshot(`
      {
        "max_tokens": 4096,
        "messages": [
          {
            "content": [
              {
                "text": "Say hello",
                "type": "text",
              },
            ],
            "role": "user",
          },
        ],
        "model": "claude-sonnet-4-6",
        "stream": true,
        "system": [
          {
            "text": "Be brief.",
            "type": "text",
          },
        ],
        "temperature": 0,
      }
    `);
  });

  it("maps text then a tool_use block, and pairs the tool_result on the next turn", async () => {
    const { server, provider } = await open([fixture("tool-call.sse"), fixture("text.sse")]);
    const { parts, onStreamPart } = collect();
    const first = await provider.generate(ask("Weather in Paris?", { tools: [weatherTool] }), { onStreamPart });
    expect(first.stopReason).toBe("tool_use");
    expect(first.content).toEqual([
      { type: "text", text: "I'll check the weather." },
      { type: "tool-call", toolCallId: "toolu_paris", toolName: "get_weather", rawArguments: '{"city": "Paris"}', arguments: { city: "Paris" } },
    ]);
    expect(parts.map((part) => part.type)).toEqual(["text-delta", "tool-call-start", "tool-call-delta", "tool-call-delta", "tool-call-end", "finish"]);
    await provider.generate({
      messages: [
        ...ask("Weather in Paris?").messages,
        { role: "assistant", content: first.content },
        { role: "tool", content: [{ type: "tool-result", toolCallId: "toolu_paris", toolName: "get_weather", result: ok("sunny, 21°C") }] },
        ...ask("And tomorrow?").messages,
      ],
      tools: [weatherTool],
      toolChoice: "required",
      providerOptions: { anthropic: { parallelToolCalls: false } },
    });
    expect(server.requests[1]!.body).toMatchInlineSnapshot(`
      {
        "max_tokens": 4096,
        "messages": [
          {
            "content": [
              {
                "text": "Weather in Paris?",
                "type": "text",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "text": "I'll check the weather.",
                "type": "text",
              },
              {
                "id": "toolu_paris",
                "input": {
                  "city": "Paris",
                },
                "name": "get_weather",
                "type": "tool_use",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "content": "sunny, 21°C",
                "tool_use_id": "toolu_paris",
                "type": "tool_result",
              },
              {
                "text": "And tomorrow?",
                "type": "text",
              },
            ],
            "role": "user",
          },
        ],
        "model": "claude-sonnet-4-6",
        "stream": true,
        "tool_choice": {
          "disable_parallel_tool_use": true,
          "type": "any",
        },
        "tools": [
          {
            "description": "Current weather for a city.",
            "input_schema": {
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
            "name": "get_weather",
          },
        ],
      }
    `);
  });

  it("maps parallel tool calls in order", async () => {
    const { provider } = await open([fixture("parallel-tool-calls.sse")]);
    const response = await provider.generate(ask("Weather in Paris and Tokyo?", { tools: [weatherTool] }));
    expect(response.content.map((part) => (part.type === "tool-call" ? [part.toolCallId, part.arguments] : part.type))).toEqual([
      ["toolu_paris", { city: "Paris" }],
      ["toolu_tokyo", { city: "Tokyo" }],
    ]);
  });

  it("returns malformed tool input as a value with argumentsError", async () => {
    const { provider } = await open([fixture("malformed-arguments.sse")]);
    const call = (await provider.generate(ask("Weather?", { tools: [weatherTool] }))).content[0];
    expect(call).toMatchObject({ type: "tool-call", toolCallId: "toolu_bad", rawArguments: '{"city": "Par' });
    expect(call?.type === "tool-call" && call.arguments).toBe(undefined);
    expect(call?.type === "tool-call" && typeof call.argumentsError).toBe("string");
  });

  it("maps max_tokens, refusal and pause_turn", async () => {
    const { provider } = await open([fixture("max-tokens.sse"), fixture("refusal.sse"), fixture("pause-turn.sse")]);
    expect(await provider.generate(ask("List"))).toMatchObject({ stopReason: "max_tokens", rawStopReason: "max_tokens" });
    expect(await provider.generate(ask("Harmful"))).toMatchObject({ stopReason: "refusal", rawStopReason: "refusal" });
    expect(await provider.generate(ask("Search"))).toMatchObject({
      stopReason: "pause",
      rawStopReason: "pause_turn",
      content: [{ type: "text", text: "Let me search for that." }],
    });
  });

  it("keeps thinking blocks with their signatures and sends them back verbatim", async () => {
    const { server, provider } = await open([fixture("thinking.sse"), fixture("text.sse")]);
    const { parts, onStreamPart } = collect();
    const request = ask("Summarize notes/todo.txt", { tools: [weatherTool], providerOptions: { anthropic: { thinkingBudgetTokens: 2048 } } });
    const first = await provider.generate(request, { onStreamPart });
    expect(first.content).toEqual([
      {
        type: "reasoning",
        text: "The user wants a summary. I should read the file first.",
        providerMetadata: { anthropic: { signature: "EqQBCkgIARABGAIiQL2signature" } },
      },
      { type: "reasoning", text: "", providerMetadata: { anthropic: { redactedData: "EmwKAhgBEgy3redacted" } } },
      { type: "tool-call", toolCallId: "toolu_read", toolName: "read_file", rawArguments: '{"path":"notes/todo.txt"}', arguments: { path: "notes/todo.txt" } },
    ]);
    expect(first.usage).toMatchObject({ outputTokens: 180, reasoningTokens: 150 });
    expect(parts.filter((part) => part.type === "reasoning-delta")).toHaveLength(2);
    const next: ModelRequest = {
      ...request,
      messages: [
        ...request.messages,
        { role: "assistant", content: first.content },
        { role: "tool", content: [{ type: "tool-result", toolCallId: "toolu_read", toolName: "read_file", result: ok("ship it") }] },
      ],
    };
    await provider.generate(next);
    expect(server.requests[1]!.body as { messages: unknown[]; thinking: unknown; max_tokens: number }).toMatchInlineSnapshot(`
      {
        "max_tokens": 6144,
        "messages": [
          {
            "content": [
              {
                "text": "Summarize notes/todo.txt",
                "type": "text",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "signature": "EqQBCkgIARABGAIiQL2signature",
                "thinking": "The user wants a summary. I should read the file first.",
                "type": "thinking",
              },
              {
                "data": "EmwKAhgBEgy3redacted",
                "type": "redacted_thinking",
              },
              {
                "id": "toolu_read",
                "input": {
                  "path": "notes/todo.txt",
                },
                "name": "read_file",
                "type": "tool_use",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "content": "ship it",
                "tool_use_id": "toolu_read",
                "type": "tool_result",
              },
            ],
            "role": "user",
          },
        ],
        "model": "claude-sonnet-4-6",
        "stream": true,
        "thinking": {
          "budget_tokens": 2048,
          "type": "enabled",
        },
        "tools": [
          {
            "description": "Current weather for a city.",
            "input_schema": {
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
            "name": "get_weather",
          },
        ],
      }
    `);
  });

  it("places the cache breakpoint at the stable-prefix boundary and reports cache usage", async () => {
    const { server, provider } = await open([fixture("prompt-cache.sse"), fixture("prompt-cache.sse")]);
    const messages: ModelRequest["messages"] = [
      { role: "system", content: "You are a careful assistant." },
      ...ask("Read notes/todo.txt").messages,
      {
        role: "assistant",
        content: [
          {
            type: "tool-call",
            toolCallId: "toolu_1",
            toolName: "read_file",
            rawArguments: JSON.stringify({ path: "notes/todo.txt" }),
            arguments: { path: "notes/todo.txt" },
          },
        ],
      },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "toolu_1", toolName: "read_file", result: ok("ship it") }] },
      ...ask("Now summarize.").messages,
    ];
    const response = await provider.generate({ messages, tools: [weatherTool], stablePrefixMessages: 4 });
    expect(response.usage).toEqual({
      inputTokens: 6020,
      outputTokens: 3,
      cacheReadTokens: 4200,
      cacheWriteTokens: 1800,
      uncachedInputTokens: 20,
      totalTokens: 6023,
    });
    expect((server.requests[0]!.body as { messages: unknown }).messages).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "text": "Read notes/todo.txt",
              "type": "text",
            },
          ],
          "role": "user",
        },
        {
          "content": [
            {
              "id": "toolu_1",
              "input": {
                "path": "notes/todo.txt",
              },
              "name": "read_file",
              "type": "tool_use",
            },
          ],
          "role": "assistant",
        },
        {
          "content": [
            {
              "cache_control": {
                "type": "ephemeral",
              },
              "content": "ship it",
              "tool_use_id": "toolu_1",
              "type": "tool_result",
            },
            {
              "text": "Now summarize.",
              "type": "text",
            },
          ],
          "role": "user",
        },
      ]
    `);
    await provider.generate({ messages: messages.slice(0, 2), tools: [], stablePrefixMessages: 1, providerOptions: { anthropic: { cacheTtl: "1h" } } });
    expect((server.requests[1]!.body as { system: unknown }).system).toMatchInlineSnapshot(`
      [
        {
          "cache_control": {
            "ttl": "1h",
            "type": "ephemeral",
          },
          "text": "You are a careful assistant.",
          "type": "text",
        },
      ]
    `);
  });

  it("rejects a 429 with PROVIDER_RATE_LIMITED carrying retry-after, without an SDK retry", async () => {
    const { server, provider } = await open([fixture("error-429.json"), fixture("text.sse")]);
    const error = await rejection(provider.generate(ask("hi")));
    expect([error.code, error.retryable]).toEqual(["PROVIDER_RATE_LIMITED", true]);
    expect(error.details).toMatchObject({ provider: "anthropic", status: 429, retryAfterMs: 3000, type: "rate_limit_error", requestId: "req_011CRate" });
    expect(server.requests).toHaveLength(1);
  });

  it("maps 529, 500 and mid-stream overloaded errors to PROVIDER_UNAVAILABLE; 400 to PROVIDER_REQUEST_INVALID", async () => {
    const { server, provider } = await open([fixture("error-529.json"), fixture("error-500.json"), fixture("overloaded-event.sse"), fixture("error-400.json")]);
    const results = [];
    for (let index = 0; index < 4; index++) {
      const error = await rejection(provider.generate(ask("hi")));
      results.push([error.code, error.retryable, error.details.type]);
    }
    expect(results).toEqual([
      ["PROVIDER_UNAVAILABLE", true, "overloaded_error"],
      ["PROVIDER_UNAVAILABLE", true, "api_error"],
      ["PROVIDER_UNAVAILABLE", true, "overloaded_error"],
      ["PROVIDER_REQUEST_INVALID", false, "invalid_request_error"],
    ]);
    expect(server.requests).toHaveLength(4);
  });

  it("rejects a stream cut mid-way with PROVIDER_STREAM_CUT and no partial response", async () => {
    for (const cut of [true, false]) {
      const { server, provider } = await replay([fixture("stream-cut.sse", { cut })]);
      const { parts, onStreamPart } = collect();
      const error = await rejection(provider.generate(ask("hi"), { onStreamPart }));
      expect(error.code, `socket destroyed: ${cut}`).toBe("PROVIDER_STREAM_CUT");
      expect(parts.some((part) => part.type === "finish")).toBe(false);
      await server.close();
    }
  });

  it("cancels the HTTP request on abort with CANCELLED", async () => {
    const { server, provider } = await open([fixture("stream-cut.sse", { hang: true })]);
    const controller = new AbortController();
    const error = await rejection(provider.generate(ask("hi"), { signal: controller.signal, onStreamPart: () => controller.abort() }));
    expect(error.code).toBe("CANCELLED");
    await expect.poll(() => server.requests[0]?.clientAborted).toBe(true);
  });

  it("reads a non-streamed JSON message the same way (stream: false)", async () => {
    const { server, provider } = await open([fixture("json-parallel-tool-calls.json")], { stream: false });
    const response = await provider.generate(ask("Weather in Paris and Tokyo?", { tools: [weatherTool] }));
    expect(response.stopReason).toBe("tool_use");
    expect(response.content.map((part) => (part.type === "tool-call" ? [part.rawArguments, part.arguments] : part.type))).toEqual([
      "reasoning",
      ['{"city":"Paris"}', { city: "Paris" }],
      ['{"city":"Tokyo"}', { city: "Tokyo" }],
    ]);
    expect((server.requests[0]!.body as { stream?: boolean }).stream).toBeUndefined();
  });
});
