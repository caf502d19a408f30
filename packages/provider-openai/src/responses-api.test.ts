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

describe("Responses API over the real SDK and recorded wire traffic", () => {
  it("streams a text answer and sends a stateless request", async () => {
    const { server, provider } = await open([fixture("text.sse")]);
    const { parts, onStreamPart } = collect();
    const response = await provider.generate(
      { messages: [{ role: "system", content: "Be brief." }, ...ask("Say hello").messages], tools: [], maxOutputTokens: 100 },
      { onStreamPart },
    );
    expect(response).toEqual({
      id: "resp_text_01",
      provider: "openai",
      model: "gpt-5-mini-2025-08-07",
      content: [{ type: "text", text: "Hello! How can I help?" }],
      stopReason: "end_turn",
      rawStopReason: "completed",
      usage: { inputTokens: 12, outputTokens: 8, cacheReadTokens: 0, reasoningTokens: 0, uncachedInputTokens: 12, totalTokens: 20 },
      providerMetadata: { openai: { responseId: "resp_text_01" } },
    });
    expect(parts.filter((part) => part.type === "text-delta").map((part) => part.text)).toEqual(["Hello", "! How can", " I help?"]);
    expect(parts.at(-1)).toEqual({ type: "finish", response });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.path).toBe("/v1/responses");
    expect(server.requests[0]!.body).toMatchInlineSnapshot(`
      {
        "include": [
          "reasoning.encrypted_content",
        ],
        "input": [
          {
            "content": "Be brief.",
            "role": "developer",
          },
          {
            "content": [
              {
                "text": "Say hello",
                "type": "input_text",
              },
            ],
            "role": "user",
          },
        ],
        "max_output_tokens": 100,
        "model": "gpt-5-mini",
        "store": false,
        "stream": true,
      }
    `);
  });

  it("maps a tool call with its id and parsed arguments", async () => {
    const { server, provider } = await open([fixture("tool-call.sse")]);
    const { parts, onStreamPart } = collect();
    const response = await provider.generate(ask("Weather in Paris?", { tools: [weatherTool], toolChoice: "auto" }), { onStreamPart });
    expect(response.stopReason).toBe("tool_use");
    expect(response.content).toEqual([
      {
        type: "tool-call",
        toolCallId: "call_weather_1",
        toolName: "get_weather",
        rawArguments: '{"city":"Paris"}',
        arguments: { city: "Paris" },
        providerMetadata: { openai: { itemId: "fc_tool_01" } },
      },
    ]);
    expect(response.usage).toEqual({ inputTokens: 40, outputTokens: 18, cacheReadTokens: 32, reasoningTokens: 0, uncachedInputTokens: 8, totalTokens: 58 });
    expect(parts.map((part) => part.type)).toEqual(["tool-call-start", "tool-call-delta", "tool-call-delta", "tool-call-end", "finish"]);
    expect(server.requests[0]!.body).toMatchInlineSnapshot(`
      {
        "include": [
          "reasoning.encrypted_content",
        ],
        "input": [
          {
            "content": [
              {
                "text": "Weather in Paris?",
                "type": "input_text",
              },
            ],
            "role": "user",
          },
        ],
        "model": "gpt-5-mini",
        "store": false,
        "stream": true,
        "tool_choice": "auto",
        "tools": [
          {
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
            "strict": false,
            "type": "function",
          },
        ],
      }
    `);
  });

  it("maps parallel tool calls in proposal order", async () => {
    const { provider } = await open([fixture("parallel-tool-calls.sse")]);
    const response = await provider.generate(ask("Weather in Paris and Tokyo?", { tools: [weatherTool] }));
    expect(response.content.map((part) => (part.type === "tool-call" ? [part.toolCallId, part.arguments] : part.type))).toEqual([
      ["call_paris", { city: "Paris" }],
      ["call_tokyo", { city: "Tokyo" }],
    ]);
  });

  it("returns malformed tool arguments as a value with argumentsError", async () => {
    const { provider } = await open([fixture("malformed-arguments.sse")]);
    const response = await provider.generate(ask("Weather?", { tools: [weatherTool] }));
    const call = response.content[0];
    expect(call).toMatchObject({ type: "tool-call", toolCallId: "call_bad", rawArguments: '{"city": "Par' });
    expect(call?.type === "tool-call" && call.arguments).toBe(undefined);
    expect(call?.type === "tool-call" && typeof call.argumentsError).toBe("string");
  });

  it("maps an incomplete response to max_tokens, keeping the status and its reason as rawStopReason", async () => {
    const { provider } = await open([fixture("max-tokens.sse")]);
    const response = await provider.generate(ask("List the items", { maxOutputTokens: 4 }));
    expect(response).toMatchObject({
      stopReason: "max_tokens",
      rawStopReason: "incomplete:max_output_tokens",
      content: [{ type: "text", text: "The threeitems are" }],
    });
  });

  it("maps a refusal content part to a refusal part (never text), stop reason refusal, rawStopReason the status", async () => {
    const { provider } = await open([fixture("refusal.sse")]);
    const response = await provider.generate(ask("Something harmful"));
    expect(response).toMatchObject({
      stopReason: "refusal",
      rawStopReason: "completed",
      content: [{ type: "refusal", text: "I'm sorry, I can't help with that.", providerMetadata: { openai: { itemId: "msg_refusal_01" } } }],
    });
    expect(response.content).toHaveLength(1);
  });

  it("keeps reasoning items and sends them back, encrypted, on the next turn", async () => {
    const { server, provider } = await open([fixture("reasoning.sse"), fixture("text.sse")]);
    const { parts, onStreamPart } = collect();
    const first = await provider.generate(
      ask("Summarize notes/todo.txt", { tools: [weatherTool], providerOptions: { openai: { reasoningEffort: "low", reasoningSummary: "auto" } } }),
      { onStreamPart },
    );
    expect(first.content[0]).toEqual({
      type: "reasoning",
      text: "Reading the file comes first.",
      summary: ["Reading the file comes first."],
      providerMetadata: { openai: { itemId: "rs_reason_01", encryptedContent: "gAAAAB-encrypted-reasoning-1" } },
    });
    expect(first.usage).toEqual({ inputTokens: 120, outputTokens: 210, cacheReadTokens: 64, reasoningTokens: 192, uncachedInputTokens: 56, totalTokens: 330 });
    expect(
      parts
        .filter((part) => part.type === "reasoning-delta")
        .map((part) => part.text)
        .join(""),
    ).toBe("Reading the file comes first.");
    const next: ModelRequest = {
      messages: [
        ...ask("Summarize notes/todo.txt").messages,
        { role: "assistant", content: first.content },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "call_read_1",
              toolName: "read_file",
              result: { status: "ok", content: [{ type: "text", text: "ship it" }], timing: { startedAt: 0, endedAt: 1, durationMs: 1 } },
            },
          ],
        },
      ],
      tools: [weatherTool],
    };
    await provider.generate(next);
    expect(server.requests[1]!.body).toMatchInlineSnapshot(`
      {
        "include": [
          "reasoning.encrypted_content",
        ],
        "input": [
          {
            "content": [
              {
                "text": "Summarize notes/todo.txt",
                "type": "input_text",
              },
            ],
            "role": "user",
          },
          {
            "encrypted_content": "gAAAAB-encrypted-reasoning-1",
            "id": "rs_reason_01",
            "summary": [
              {
                "text": "Reading the file comes first.",
                "type": "summary_text",
              },
            ],
            "type": "reasoning",
          },
          {
            "arguments": "{"path":"notes/todo.txt"}",
            "call_id": "call_read_1",
            "name": "read_file",
            "type": "function_call",
          },
          {
            "call_id": "call_read_1",
            "output": "ship it",
            "type": "function_call_output",
          },
        ],
        "model": "gpt-5-mini",
        "store": false,
        "stream": true,
        "tools": [
          {
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
            "strict": false,
            "type": "function",
          },
        ],
      }
    `);
  });

  it("rejects a 429 with PROVIDER_RATE_LIMITED carrying retry-after, without an SDK retry", async () => {
    const { server, provider } = await open([fixture("error-429.json"), fixture("text.sse")]);
    const error = await rejection(provider.generate(ask("hi")));
    expect(error.code).toBe("PROVIDER_RATE_LIMITED");
    expect(error.retryable).toBe(true);
    expect(error.details).toMatchObject({ provider: "openai", status: 429, retryAfterMs: 2000, requestId: "req_rate_1" });
    expect(server.requests).toHaveLength(1);
  });

  it("rejects a 5xx with a retryable PROVIDER_UNAVAILABLE, and a 400 with PROVIDER_REQUEST_INVALID", async () => {
    const { server, provider } = await open([fixture("error-503.json"), fixture("error-400.json")]);
    const unavailable = await rejection(provider.generate(ask("hi")));
    expect([unavailable.code, unavailable.retryable, unavailable.details.status]).toEqual(["PROVIDER_UNAVAILABLE", true, 503]);
    const invalid = await rejection(provider.generate(ask("hi")));
    expect([invalid.code, invalid.retryable, invalid.details.status]).toEqual(["PROVIDER_REQUEST_INVALID", false, 400]);
    expect(server.requests).toHaveLength(2);
  });

  it("rejects a stream cut mid-way with PROVIDER_STREAM_CUT and no partial response", async () => {
    for (const cut of [true, false]) {
      const { server, provider } = await replay([fixture("stream-cut.sse", { cut })]);
      const { parts, onStreamPart } = collect();
      const error = await rejection(provider.generate(ask("hi"), { onStreamPart }));
      expect(error.code, `socket destroyed: ${cut}`).toBe("PROVIDER_STREAM_CUT");
      expect(error.retryable).toBe(true);
      expect(parts.some((part) => part.type === "finish")).toBe(false);
      await server.close();
    }
  });

  it("maps response.failed and an error event mid-stream to typed errors", async () => {
    const { provider } = await open([fixture("response-failed.sse"), fixture("error-event.sse")]);
    expect((await rejection(provider.generate(ask("hi")))).code).toBe("PROVIDER_UNAVAILABLE");
    const error = await rejection(provider.generate(ask("hi")));
    expect([error.code, error.retryable, error.details.type]).toEqual(["PROVIDER_UNAVAILABLE", true, "server_error"]);
  });

  it("cancels the HTTP request on abort with CANCELLED", async () => {
    const { server, provider } = await open([fixture("stream-cut.sse", { hang: true })]);
    const controller = new AbortController();
    const pending = rejection(provider.generate(ask("hi"), { signal: controller.signal, onStreamPart: () => controller.abort() }));
    const error = await pending;
    expect(error.code).toBe("CANCELLED");
    await expect.poll(() => server.requests[0]?.clientAborted).toBe(true);
  });

  it("makes no request for an already-aborted signal", async () => {
    const { server, provider } = await open([]);
    const controller = new AbortController();
    controller.abort();
    expect((await rejection(provider.generate(ask("hi"), { signal: controller.signal }))).code).toBe("CANCELLED");
    expect(server.requests).toHaveLength(0);
  });

  it("reads a non-streamed JSON response the same way (stream: false)", async () => {
    const { server, provider } = await open([fixture("json-parallel-tool-calls.json")], { stream: false });
    const response = await provider.generate(ask("Weather in Paris and Tokyo?", { tools: [weatherTool] }));
    expect(response.stopReason).toBe("tool_use");
    expect(response.content.map((part) => (part.type === "tool-call" ? part.arguments : part.type))).toEqual([{ city: "Paris" }, { city: "Tokyo" }]);
    expect((server.requests[0]!.body as { stream?: boolean }).stream).toBeUndefined();
  });
});
