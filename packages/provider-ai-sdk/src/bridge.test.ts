// The bridge's own mapping rules, driven by the AI SDK's mock model (ai/test).
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { YokeError, type ModelRequest } from "@yoke/protocol";
import { createAiSdkProvider, DEFAULT_AI_SDK_CAPABILITIES } from "./index.js";
import { MockLanguageModelV3 } from "ai/test";
import { MockLanguageModelV4, ask, collect, rejection, streamOf, textParts, toolCallParts, usage, weatherTool } from "./__fixtures__/test-support.js";

const modelStreaming = (...results: LanguageModelV4StreamPart[][]) =>
  new MockLanguageModelV4({ provider: "mock.chat", modelId: "mock-model", doStream: results.map((parts) => streamOf(parts)) });

const finishPart = (unified: string, raw: string | undefined): LanguageModelV4StreamPart =>
  ({ type: "finish", finishReason: { unified, raw }, usage: usage(5, 2) }) as LanguageModelV4StreamPart;

describe("createAiSdkProvider", () => {
  it("refuses a model of another specification version with CONFIG_INVALID", () => {
    const v2 = {
      specificationVersion: "v2",
      provider: "old",
      modelId: "old-model",
      supportedUrls: {},
      doGenerate: async () => ({}),
      doStream: async () => ({}),
    };
    expect(() => createAiSdkProvider({ model: v2 as never })).toThrowError(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });

  it("drives a LanguageModelV3 (AI SDK 6 provider packages) through the same mapping", async () => {
    const model = new MockLanguageModelV3({
      provider: "older.chat",
      modelId: "older-model",
      supportedUrls: () => ({ "audio/*": [/^https:/] }),
      doStream: streamOf(toolCallParts([{ id: "c1", input: '{"city":"Kyiv"}' }])) as never,
    });
    const provider = createAiSdkProvider({ model });
    expect([provider.provider, provider.modelId, provider.model.specificationVersion]).toEqual(["older.chat", "older-model", "v4"]);
    expect(provider.capabilities.inputModalities).toEqual(["text", "audio"]);
    const response = await provider.generate(ask("x", { tools: [weatherTool], toolChoice: "auto" }));
    expect(response.content).toEqual([
      { type: "tool-call", toolCallId: "c1", toolName: "get_weather", rawArguments: '{"city":"Kyiv"}', arguments: { city: "Kyiv" } },
    ]);
    expect(response.stopReason).toBe("tool_use");
    expect(model.doStreamCalls[0]!.toolChoice).toEqual({ type: "auto" });
  });

  it("reads input modalities from supportedUrls, keeps conservative defaults, and lets options override", () => {
    const model = new MockLanguageModelV4({
      provider: "mock.chat",
      modelId: "m",
      supportedUrls: () => ({ "image/*": [/^https:/], "application/pdf": [/^https:/] }),
    });
    const provider = createAiSdkProvider({ model, capabilities: { contextWindow: 200_000, parallelToolCalls: true } });
    expect(provider.provider).toBe("mock.chat");
    expect(provider.modelId).toBe("m");
    expect(provider.capabilities).toEqual({
      ...DEFAULT_AI_SDK_CAPABILITIES,
      inputModalities: ["text", "image", "file"],
      contextWindow: 200_000,
      parallelToolCalls: true,
    });
    // A promised supportedUrls (the mock's default) cannot be read synchronously: text only.
    expect(createAiSdkProvider({ model: new MockLanguageModelV4({ supportedUrls: { "image/*": [/./] } }) }).capabilities.inputModalities).toEqual(["text"]);
    expect(createAiSdkProvider({ model, provider: "my-gateway" }).provider).toBe("my-gateway");
  });

  it("maps the call options: prompt with reasoning metadata and tool calls sent back, tools, tool choice, limits, response format, provider options", async () => {
    const model = modelStreaming(textParts("ok"));
    const provider = createAiSdkProvider({ model, capabilities: { structuredOutput: "json-schema" }, headers: { "x-team": "agents" } });
    const controller = new AbortController();
    const request: ModelRequest = {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "a" },
            { type: "text", text: "b" },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "thinking", providerMetadata: { anthropic: { signature: "sig_1" } } },
            {
              type: "tool-call",
              toolCallId: "c1",
              toolName: "get_weather",
              rawArguments: '{"city":"Oslo"}',
              arguments: { city: "Oslo" },
              providerMetadata: { google: { thoughtSignature: "ts" } },
            },
            { type: "tool-call", toolCallId: "c2", toolName: "get_weather", rawArguments: '{"city": "Os', argumentsError: "Unexpected end of JSON input" },
          ],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "c1",
              toolName: "get_weather",
              result: { status: "ok", content: [], output: { celsius: 4 }, timing: { startedAt: 0, endedAt: 0, durationMs: 0 } },
            },
            {
              type: "tool-result",
              toolCallId: "c2",
              toolName: "get_weather",
              result: {
                status: "error",
                content: [{ type: "text", text: "bad JSON" }],
                error: { code: "TOOL_INPUT_INVALID", message: "not JSON" },
                timing: { startedAt: 0, endedAt: 0, durationMs: 0 },
              },
            },
          ],
        },
      ],
      tools: [weatherTool],
      toolChoice: "required",
      maxOutputTokens: 100,
      providerOptions: {
        "ai-sdk": { structuredOutput: { name: "weather", schema: { type: "object" } }, topP: 0.9, stopSequences: ["END"] },
        google: { thinkingConfig: { thinkingBudget: 0 } },
      },
    };
    await provider.generate(request, { signal: controller.signal });
    const call = model.doStreamCalls[0]!;
    expect(call.abortSignal).toBe(controller.signal);
    expect(call.headers).toEqual({ "x-team": "agents" });
    expect({ ...call, abortSignal: undefined, headers: undefined }).toEqual({
      prompt: [
        {
          role: "user",
          content: [
            { type: "text", text: "a" },
            { type: "text", text: "b" },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "thinking", providerOptions: { anthropic: { signature: "sig_1" } } },
            { type: "tool-call", toolCallId: "c1", toolName: "get_weather", input: { city: "Oslo" }, providerOptions: { google: { thoughtSignature: "ts" } } },
            { type: "tool-call", toolCallId: "c2", toolName: "get_weather", input: '{"city": "Os' },
          ],
        },
        {
          role: "tool",
          content: [
            { type: "tool-result", toolCallId: "c1", toolName: "get_weather", output: { type: "json", value: { celsius: 4 } } },
            { type: "tool-result", toolCallId: "c2", toolName: "get_weather", output: { type: "error-text", value: "TOOL_INPUT_INVALID: not JSON\nbad JSON" } },
          ],
        },
      ],
      tools: [{ type: "function", name: "get_weather", description: weatherTool.description, inputSchema: weatherTool.inputSchema }],
      toolChoice: { type: "required" },
      maxOutputTokens: 100,
      topP: 0.9,
      stopSequences: ["END"],
      responseFormat: { type: "json", schema: { type: "object" }, name: "weather" },
      providerOptions: { google: { thinkingConfig: { thinkingBudget: 0 } } },
      abortSignal: undefined,
      headers: undefined,
    });
  });

  it("sends a request's responseFormat as the call's responseFormat when the model declares structured output, else warns", async () => {
    const format = { type: "json" as const, name: "weather", schema: { type: "object", properties: { celsius: { type: "number" } } } };
    const model = modelStreaming(textParts('{"celsius":4}'));
    await createAiSdkProvider({ model, capabilities: { structuredOutput: "json-schema" } }).generate(ask("json", { responseFormat: format }));
    expect(model.doStreamCalls[0]!.responseFormat).toEqual({ type: "json", schema: format.schema, name: "weather" });

    const plain = modelStreaming(textParts('{"celsius":4}'));
    const response = await createAiSdkProvider({ model: plain }).generate(ask("json", { responseFormat: format }));
    expect(plain.doStreamCalls[0]!.responseFormat).toBeUndefined();
    expect(response.warnings).toContain(
      "responseFormat was not sent: the model declares no structured output (set capabilities.structuredOutput if it has one)",
    );
  });

  it("sends a tool call back in the key order the model wrote, not the journal's canonical order", async () => {
    const model = modelStreaming(textParts("ok"));
    await createAiSdkProvider({ model }).generate({
      messages: [
        { role: "user", content: [{ type: "text", text: "write it" }] },
        // As a journal gives it back: `arguments` in canonical JSON (keys sorted), `rawArguments` verbatim.
        {
          role: "assistant",
          content: [
            {
              type: "tool-call",
              toolCallId: "w1",
              toolName: "write_file",
              rawArguments: '{"path":"a.md","content":"x"}',
              arguments: { content: "x", path: "a.md" },
            },
          ],
        },
      ],
      tools: [],
    });
    const input = (model.doStreamCalls[0]!.prompt[1]!.content[0] as { input: unknown }).input;
    expect(JSON.stringify(input)).toBe('{"path":"a.md","content":"x"}');
  });

  it("refuses before any call what the matrix says the model cannot take", async () => {
    const model = modelStreaming(textParts("never"));
    const provider = createAiSdkProvider({ model });
    const structured = ask("json", { providerOptions: { "ai-sdk": { structuredOutput: { schema: { type: "object" } } } } });
    expect(() => provider.admit(structured)).toThrowError(expect.objectContaining({ code: "PROVIDER_ADMISSION_REJECTED" }));
    expect((await rejection(provider.generate(ask("x", { maxOutputTokens: 10_000 })))).code).toBe("PROVIDER_ADMISSION_REJECTED");
    expect((await rejection(provider.generate(ask("x", { toolChoice: "required" })))).code).toBe("PROVIDER_ADMISSION_REJECTED");
    expect((await rejection(provider.generate(ask("x", { providerOptions: { "ai-sdk": { topK: "many" } } })))).code).toBe("PROVIDER_ADMISSION_REJECTED");
    const noTools = createAiSdkProvider({ model, capabilities: { toolCalls: false } });
    expect(() => noTools.admit(ask("x", { tools: [weatherTool] }))).toThrowError(expect.objectContaining({ code: "PROVIDER_ADMISSION_REJECTED" }));
    expect(model.doStreamCalls).toHaveLength(0);
  });

  it("keeps reasoning metadata from start, delta and end parts on the reasoning part, and the model's warnings", async () => {
    const parts: LanguageModelV4StreamPart[] = [
      {
        type: "stream-start",
        warnings: [
          { type: "unsupported", feature: "temperature", details: "reasoning models ignore it" },
          { type: "other", message: "beta model" },
        ],
      },
      { type: "reasoning-start", id: "r0", providerMetadata: { anthropic: { redacted: false } } },
      { type: "reasoning-delta", id: "r0", delta: "Let me think." },
      { type: "reasoning-end", id: "r0", providerMetadata: { anthropic: { signature: "sig_9" } } },
      ...textParts("Done.").slice(2),
    ];
    const provider = createAiSdkProvider({ model: modelStreaming(parts) });
    const response = await provider.generate(ask("think"));
    expect(response.content).toEqual([
      { type: "reasoning", text: "Let me think.", providerMetadata: { anthropic: { redacted: false, signature: "sig_9" } } },
      { type: "text", text: "Done." },
    ]);
    expect(response.warnings).toEqual(["temperature is not supported by the model: reasoning models ignore it", "beta model"]);
  });

  it("treats a stop with tool calls as tool_use, and `other` without calls as end_turn with a warning", async () => {
    const calls = toolCallParts([{ id: "c1", input: '{"city":"Rome"}' }]);
    const stopAfterCalls = [...calls.slice(0, -1), finishPart("stop", "stop")];
    const provider = createAiSdkProvider({ model: modelStreaming(stopAfterCalls, [...textParts("x").slice(0, -1), finishPart("other", "pause_turn")]) });
    const first = await provider.generate(ask("a", { tools: [weatherTool] }));
    expect([first.stopReason, first.rawStopReason]).toEqual(["tool_use", "stop"]);
    const second = await provider.generate(ask("b"));
    expect([second.stopReason, second.rawStopReason]).toEqual(["end_turn", "pause_turn"]);
    expect(second.warnings?.[0]).toMatch(/"other" \(pause_turn\).*end_turn/);
  });

  it("rejects a stream that finishes interrupted, or ends without a finish part, as PROVIDER_STREAM_CUT and emits no finish", async () => {
    const provider = createAiSdkProvider({
      model: modelStreaming([...textParts("half").slice(0, -1), finishPart("interrupted", undefined)], textParts("half").slice(0, -1)),
    });
    for (let index = 0; index < 2; index += 1) {
      const stream = collect();
      const error = await rejection(provider.generate(ask("x"), { onStreamPart: stream.onStreamPart }));
      expect(error).toMatchObject({ code: "PROVIDER_STREAM_CUT", retryable: true });
      expect(stream.parts.some((part) => part.type === "finish")).toBe(false);
    }
  });

  it("classifies stream error parts: a provider error body by its type, an unparsable chunk as PROVIDER_RESPONSE_INVALID", async () => {
    const jsonError = Object.assign(new Error("JSON parsing failed: Text: {oops"), { name: "AI_JSONParseError" });
    const model = new MockLanguageModelV4({
      provider: "mock.chat",
      modelId: "m",
      doStream: [
        streamOf(
          [
            { type: "stream-start", warnings: [] },
            { type: "error", error: { type: "invalid_request_error", message: "bad tool schema" } },
            finishPart("error", undefined),
          ],
          { headers: { "request-id": "req_mock_1" } },
        ),
        streamOf([{ type: "stream-start", warnings: [] }, { type: "error", error: jsonError }, finishPart("error", undefined)]),
        streamOf([{ type: "stream-start", warnings: [] }, finishPart("error", undefined)]),
      ],
    });
    const provider = createAiSdkProvider({ model });
    const invalid = await rejection(provider.generate(ask("x")));
    expect(invalid).toMatchObject({ code: "PROVIDER_REQUEST_INVALID", retryable: false });
    expect(invalid.details).toMatchObject({ type: "invalid_request_error", requestId: "req_mock_1" });
    expect(await rejection(provider.generate(ask("x")))).toMatchObject({ code: "PROVIDER_RESPONSE_INVALID", retryable: false });
    expect(await rejection(provider.generate(ask("x")))).toMatchObject({ code: "PROVIDER_UNAVAILABLE", retryable: true });
  });

  // Changed with issue 11 (item 5): provider-executed calls and results used to be dropped with warnings.
  it("keeps provider-executed calls and results as server tool parts, drops files with a warning, and keeps client calls", async () => {
    const parts: LanguageModelV4StreamPart[] = [
      { type: "tool-call", toolCallId: "srv_1", toolName: "web_search", input: '{"q":"x"}', providerExecuted: true },
      { type: "tool-result", toolCallId: "srv_1", toolName: "web_search", result: { hits: 1 } },
      { type: "file", mediaType: "image/png", data: { type: "data", data: "iVBORw0KGgo=" } } as LanguageModelV4StreamPart,
      ...toolCallParts([{ id: "c1", input: '{"city":"Lima"}' }]),
    ];
    const response = await createAiSdkProvider({ model: modelStreaming(parts) }).generate(ask("x", { tools: [weatherTool] }));
    expect(response.content).toEqual([
      { type: "server-tool-call", provider: "mock.chat", toolCallId: "srv_1", toolName: "web_search", arguments: { q: "x" }, raw: parts[0] },
      { type: "server-tool-result", provider: "mock.chat", toolCallId: "srv_1", resultType: "tool-result", raw: parts[1] },
      { type: "tool-call", toolCallId: "c1", toolName: "get_weather", rawArguments: '{"city":"Lima"}', arguments: { city: "Lima" } },
    ]);
    expect(response.warnings).toHaveLength(1);
    expect(response.stopReason).toBe("tool_use");
  });

  it("turns a call that emits only a final tool-call part into start, one delta and end stream parts", async () => {
    const parts: LanguageModelV4StreamPart[] = [
      { type: "tool-call", toolCallId: "c9", toolName: "get_weather", input: '{"city":"Quito"}' },
      finishPart("tool-calls", "tool_use"),
    ];
    const stream = collect();
    await createAiSdkProvider({ model: modelStreaming(parts) }).generate(ask("x", { tools: [weatherTool] }), { onStreamPart: stream.onStreamPart });
    expect(stream.parts.slice(0, 3)).toEqual([
      { type: "tool-call-start", toolCallId: "c9", toolName: "get_weather" },
      { type: "tool-call-delta", toolCallId: "c9", argumentsDelta: '{"city":"Quito"}' },
      { type: "tool-call-end", toolCallId: "c9" },
    ]);
  });

  it("maps a thrown abort after the call began to CANCELLED, and a YokeError thrown by the model passes through", async () => {
    const controller = new AbortController();
    const model = new MockLanguageModelV4({
      doStream: async () => {
        controller.abort();
        throw Object.assign(new Error("This operation was aborted"), { name: "AbortError" });
      },
    });
    expect((await rejection(createAiSdkProvider({ model }).generate(ask("x"), { signal: controller.signal }))).code).toBe("CANCELLED");
    const typed = new YokeError("PROVIDER_TIMEOUT", "deadline");
    const failing = new MockLanguageModelV4({ doStream: async () => Promise.reject(typed) });
    expect(await rejection(createAiSdkProvider({ model: failing }).generate(ask("x")))).toBe(typed);
  });
});
