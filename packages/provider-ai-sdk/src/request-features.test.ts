// Issue 11 items 3, 4 and 6 as the specification can express them, over the AI SDK's mock
// model: stop sequences, strict tools, usage totals, reasoning parts, calls cut by the output
// limit, refusals and provider (server) tools.
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { toolCallsOf, type ModelRequest, type ServerToolSpec } from "@yoke/protocol";
import { createAiSdkProvider } from "./index.js";
import { MockLanguageModelV4, ask, collect, rejection, streamOf, textParts, toolCallParts, usage, weatherTool } from "./__fixtures__/test-support.js";

const modelStreaming = (parts: LanguageModelV4StreamPart[], extra: { supportsStructuredOutputs?: boolean } = {}) =>
  Object.assign(new MockLanguageModelV4({ provider: "mock.chat", modelId: "mock-model", doStream: [streamOf(parts)] }), extra);
const finish = (unified: "length" | "tool-calls" | "content-filter", raw: string): LanguageModelV4StreamPart => ({
  type: "finish",
  finishReason: { unified, raw },
  usage: usage(20, 10),
});
const search: ServerToolSpec = { provider: "mock.chat", type: "openai.web_search", name: "web_search", options: { searchContextSize: "low" } };

describe("request features the specification expresses", () => {
  it("sends request.stopSequences as the call's stopSequences, and refuses more than capabilities.maxStopSequences (default 4) before any call", async () => {
    const model = modelStreaming(textParts("ok"));
    const provider = createAiSdkProvider({ model });
    expect(provider.capabilities.maxStopSequences).toBe(4);
    await provider.generate(ask("x", { stopSequences: ["END", "\n\n"] }));
    expect(model.doStreamCalls[0]!.stopSequences).toEqual(["END", "\n\n"]);
    const five = ask("x", { stopSequences: ["a", "b", "c", "d", "e"] });
    expect((await rejection(provider.generate(five))).code).toBe("PROVIDER_ADMISSION_REJECTED");
    expect(model.doStreamCalls).toHaveLength(1);
    expect(createAiSdkProvider({ model, capabilities: { maxStopSequences: 5 } }).admit(five)).toEqual([]);
  });

  it("sends a strict tool's strict flag to a model with constrained decoding, and refuses it before any call to one without", async () => {
    const strictTool = { ...weatherTool, strict: true };
    const declaring = modelStreaming(textParts("ok"), { supportsStructuredOutputs: true });
    const provider = createAiSdkProvider({ model: declaring });
    expect(provider.capabilities.strictTools).toBe(true);
    await provider.generate(ask("x", { tools: [strictTool, weatherTool] }));
    expect(declaring.doStreamCalls[0]!.tools).toEqual([
      { type: "function", name: "get_weather", description: weatherTool.description, inputSchema: weatherTool.inputSchema, strict: true },
      { type: "function", name: "get_weather", description: weatherTool.description, inputSchema: weatherTool.inputSchema },
    ]);
    const plain = modelStreaming(textParts("never"));
    const refused = await rejection(createAiSdkProvider({ model: plain }).generate(ask("x", { tools: [strictTool] })));
    expect(refused.code).toBe("PROVIDER_ADMISSION_REJECTED");
    expect(refused.details.reason).toMatch(/strict/);
    expect(plain.doStreamCalls).toHaveLength(0);
    expect(createAiSdkProvider({ model: plain, capabilities: { strictTools: true } }).admit(ask("x", { tools: [strictTool] }))).toEqual([]);
  });

  it("fills uncached input and total tokens, preferring the provider's own uncached figure (inputTokens.noCache)", async () => {
    const given = { inputTokens: { total: 100, noCache: 35, cacheRead: 60, cacheWrite: 10 }, outputTokens: { total: 7, text: 7, reasoning: undefined } };
    const response = await createAiSdkProvider({ model: modelStreaming(textParts("ok", { usage: given })) }).generate(ask("x"));
    expect(response.usage).toEqual({ inputTokens: 100, outputTokens: 7, cacheReadTokens: 60, cacheWriteTokens: 10, uncachedInputTokens: 35, totalTokens: 107 });
    const computed = await createAiSdkProvider({
      model: modelStreaming(textParts("ok", { usage: { ...given, inputTokens: { ...given.inputTokens, noCache: undefined } } })),
    }).generate(ask("x"));
    expect(computed.usage).toMatchObject({ uncachedInputTokens: 30, totalTokens: 107 });
  });

  it("keeps each reasoning part of the model apart, and sends a reasoning part's summary back as one reasoning part per summary part", async () => {
    const parts: LanguageModelV4StreamPart[] = [
      { type: "reasoning-start", id: "rs_1:0", providerMetadata: { openai: { itemId: "rs_1" } } },
      { type: "reasoning-delta", id: "rs_1:0", delta: "First, the city." },
      { type: "reasoning-end", id: "rs_1:0" },
      { type: "reasoning-start", id: "rs_1:1", providerMetadata: { openai: { itemId: "rs_1" } } },
      { type: "reasoning-delta", id: "rs_1:1", delta: "Then, the unit." },
      { type: "reasoning-end", id: "rs_1:1" },
      ...textParts("Sunny.").slice(2),
    ];
    const model = modelStreaming(parts);
    const response = await createAiSdkProvider({ model }).generate(ask("x"));
    // The specification has no summary part: each of its reasoning parts is one ReasoningPart.
    expect(response.content.slice(0, 2)).toEqual([
      { type: "reasoning", text: "First, the city.", providerMetadata: { openai: { itemId: "rs_1" } } },
      { type: "reasoning", text: "Then, the unit.", providerMetadata: { openai: { itemId: "rs_1" } } },
    ]);
    const back = modelStreaming(textParts("ok"));
    const metadata = { openai: { itemId: "rs_9" } };
    await createAiSdkProvider({ model: back }).generate({
      messages: [
        { role: "user", content: [{ type: "text", text: "x" }] },
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "One.\n\nTwo.", summary: ["One.", "Two."], providerMetadata: metadata },
            { type: "text", text: "Done." },
          ],
        },
      ],
      tools: [],
    });
    expect(back.doStreamCalls[0]!.prompt[1]).toEqual({
      role: "assistant",
      content: [
        { type: "reasoning", text: "One.", providerOptions: metadata },
        { type: "reasoning", text: "Two.", providerOptions: metadata },
        { type: "text", text: "Done." },
      ],
    });
  });

  it("maps a content-filter finish to content_filter with the provider's raw reason (a refusal arrives as text: the specification has no refusal part)", async () => {
    const parts = [...textParts("I can't help with that.").slice(0, -1), finish("content-filter", "content_filter")];
    const response = await createAiSdkProvider({ model: modelStreaming(parts) }).generate(ask("x"));
    expect(response).toMatchObject({
      stopReason: "content_filter",
      rawStopReason: "content_filter",
      content: [{ type: "text", text: "I can't help with that." }],
    });
  });
});

describe("a tool call cut by the output limit", () => {
  it("is a tool-call-truncated part and stream part when its input started but its tool-call never came (finish length)", async () => {
    const parts: LanguageModelV4StreamPart[] = [
      ...toolCallParts([{ id: "c1", input: '{"city":"Paris"}' }]).slice(0, -1),
      { type: "tool-input-start", id: "c2", toolName: "get_weather" },
      { type: "tool-input-delta", id: "c2", delta: '{"city":"To' },
      finish("length", "length"),
    ];
    const stream = collect();
    const response = await createAiSdkProvider({ model: modelStreaming(parts) }).generate(ask("x", { tools: [weatherTool] }), {
      onStreamPart: stream.onStreamPart,
    });
    expect(response.stopReason).toBe("max_tokens");
    expect(response.content).toEqual([
      { type: "tool-call", toolCallId: "c1", toolName: "get_weather", rawArguments: '{"city":"Paris"}', arguments: { city: "Paris" } },
      { type: "tool-call-truncated", toolCallId: "c2", toolName: "get_weather", rawArguments: '{"city":"To' },
    ]);
    expect(toolCallsOf(response).map((call) => call.toolCallId)).toEqual(["c1"]);
    expect(stream.parts.filter((part) => part.type === "tool-call-truncated")).toEqual([{ type: "tool-call-truncated", toolCallId: "c2" }]);
    expect(stream.parts.some((part) => part.type === "tool-call-end" && part.toolCallId === "c2")).toBe(false);
  });

  it("is a tool-call-truncated part when a tool-call's input does not parse and the finish is length; with another finish it stays a call with argumentsError", async () => {
    const cut = [...toolCallParts([{ id: "c3", input: '{"city": "Ber' }]).slice(0, -1), finish("length", "max_tokens")];
    const stream = collect();
    const response = await createAiSdkProvider({ model: modelStreaming(cut) }).generate(ask("x", { tools: [weatherTool] }), {
      onStreamPart: stream.onStreamPart,
    });
    expect(response.content).toEqual([{ type: "tool-call-truncated", toolCallId: "c3", toolName: "get_weather", rawArguments: '{"city": "Ber' }]);
    expect(response).toMatchObject({ stopReason: "max_tokens", rawStopReason: "max_tokens" });
    expect(stream.parts.at(-2)).toEqual({ type: "tool-call-truncated", toolCallId: "c3" });
    const malformed = [...toolCallParts([{ id: "c4", input: '{"city": "Ber' }]).slice(0, -1), finish("tool-calls", "tool_calls")];
    const call = (await createAiSdkProvider({ model: modelStreaming(malformed) }).generate(ask("x", { tools: [weatherTool] }))).content[0];
    expect(call).toMatchObject({ type: "tool-call", toolCallId: "c4", rawArguments: '{"city": "Ber' });
    expect(call?.type === "tool-call" && typeof call.argumentsError).toBe("string");
  });

  it("is a tool-call-truncated part from doGenerate too (stream: false)", async () => {
    const model = new MockLanguageModelV4({
      provider: "mock.chat",
      modelId: "mock-model",
      doGenerate: {
        content: [{ type: "tool-call", toolCallId: "c5", toolName: "get_weather", input: '{"city":' }],
        finishReason: { unified: "length", raw: "length" },
        usage: usage(20, 10),
        warnings: [],
      },
    });
    const response = await createAiSdkProvider({ model, stream: false }).generate(ask("x", { tools: [weatherTool] }));
    expect(response.content).toEqual([{ type: "tool-call-truncated", toolCallId: "c5", toolName: "get_weather", rawArguments: '{"city":' }]);
    expect(response.stopReason).toBe("max_tokens");
  });

  it("is never sent back: neither as a call nor with a result", async () => {
    const model = modelStreaming(textParts("ok"));
    await createAiSdkProvider({ model }).generate({
      messages: [
        { role: "user", content: [{ type: "text", text: "x" }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Checking." },
            { type: "tool-call-truncated", toolCallId: "c2", toolName: "get_weather", rawArguments: '{"city":"To' },
          ],
        },
        { role: "user", content: [{ type: "text", text: "Your call was cut by the output limit; call again." }] },
      ],
      tools: [weatherTool],
    });
    expect(model.doStreamCalls[0]!.prompt[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "Checking." }] });
  });

  it("leaves out an assistant message that held only a cut call (providers reject an empty one)", async () => {
    const model = modelStreaming(textParts("ok"));
    await createAiSdkProvider({ model }).generate({
      messages: [
        { role: "user", content: [{ type: "text", text: "x" }] },
        { role: "assistant", content: [{ type: "tool-call-truncated", toolCallId: "c2", toolName: "get_weather", rawArguments: '{"city":"To' }] },
        { role: "user", content: [{ type: "text", text: "Your call was cut by the output limit; call again." }] },
      ],
      tools: [weatherTool],
    });
    expect(model.doStreamCalls[0]!.prompt.map((message) => message.role)).toEqual(["user", "user"]);
  });
});

describe("server tools (the specification's provider tools)", () => {
  it("refuses a server tool before any call unless capabilities.serverTools lists its id and it names this provider", async () => {
    const model = modelStreaming(textParts("never"));
    const provider = createAiSdkProvider({ model });
    expect(provider.capabilities.serverTools).toBeUndefined();
    expect((await rejection(provider.generate(ask("x", { serverTools: [search] })))).code).toBe("PROVIDER_ADMISSION_REJECTED");
    const declared = createAiSdkProvider({ model, capabilities: { serverTools: ["openai.web_search"] } });
    expect(() => declared.admit(ask("x", { serverTools: [{ ...search, provider: "anthropic" }] }))).toThrowError(
      expect.objectContaining({ code: "PROVIDER_ADMISSION_REJECTED" }),
    );
    expect(() => declared.admit(ask("x", { serverTools: [{ ...search, type: "openai.file_search" }] }))).toThrowError(
      expect.objectContaining({ code: "PROVIDER_ADMISSION_REJECTED" }),
    );
    expect(model.doStreamCalls).toHaveLength(0);
  });

  it("declares a listed server tool as a provider tool, streams its call and result as server tool parts, and sends them back verbatim", async () => {
    const call = {
      type: "tool-call",
      toolCallId: "ws_1",
      toolName: "web_search",
      input: '{"query":"Kyiv weather"}',
      providerExecuted: true,
      providerMetadata: { openai: { itemId: "ws_1" } },
    } as const;
    const result = {
      type: "tool-result",
      toolCallId: "ws_1",
      toolName: "web_search",
      result: { status: "completed" },
      providerMetadata: { openai: { itemId: "ws_1" } },
    } as const;
    const model = new MockLanguageModelV4({
      provider: "mock.chat",
      modelId: "mock-model",
      doStream: [streamOf([call, result, ...textParts("Sunny.").slice(2)]), streamOf(textParts("ok"))],
    });
    const provider = createAiSdkProvider({ model, capabilities: { serverTools: ["openai.web_search"] } });
    const stream = collect();
    const request: ModelRequest = ask("Weather in Kyiv?", { serverTools: [search] });
    const response = await provider.generate(request, { onStreamPart: stream.onStreamPart });
    expect(model.doStreamCalls[0]!.tools).toEqual([{ type: "provider", id: "openai.web_search", name: "web_search", args: { searchContextSize: "low" } }]);
    const serverCall = {
      type: "server-tool-call",
      provider: "mock.chat",
      toolCallId: "ws_1",
      toolName: "web_search",
      arguments: { query: "Kyiv weather" },
      raw: call,
    };
    const serverResult = { type: "server-tool-result", provider: "mock.chat", toolCallId: "ws_1", resultType: "tool-result", raw: result };
    expect(response.content).toEqual([serverCall, serverResult, { type: "text", text: "Sunny." }]);
    expect(response.stopReason).toBe("end_turn");
    expect(stream.parts.slice(0, 2)).toEqual([
      { type: "server-tool-call", part: serverCall },
      { type: "server-tool-result", part: serverResult },
    ]);
    expect(response.warnings).toBeUndefined();

    await provider.generate({ ...request, messages: [...request.messages, { role: "assistant", content: response.content }] });
    expect(model.doStreamCalls[1]!.prompt[1]).toEqual({
      role: "assistant",
      content: [
        {
          type: "tool-call",
          toolCallId: "ws_1",
          toolName: "web_search",
          input: { query: "Kyiv weather" },
          providerExecuted: true,
          providerOptions: { openai: { itemId: "ws_1" } },
        },
        {
          type: "tool-result",
          toolCallId: "ws_1",
          toolName: "web_search",
          output: { type: "json", value: { status: "completed" } },
          providerOptions: { openai: { itemId: "ws_1" } },
        },
        { type: "text", text: "Sunny." },
      ],
    });
  });

  it("drops another provider's server tool parts when sending back", async () => {
    const model = modelStreaming(textParts("ok"));
    await createAiSdkProvider({ model }).generate({
      messages: [
        { role: "user", content: [{ type: "text", text: "x" }] },
        {
          role: "assistant",
          content: [
            {
              type: "server-tool-call",
              provider: "anthropic",
              toolCallId: "srvtoolu_1",
              toolName: "web_search",
              arguments: { query: "x" },
              raw: { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "x" } },
            },
            { type: "text", text: "Found it." },
          ],
        },
      ],
      tools: [],
    });
    expect(model.doStreamCalls[0]!.prompt[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "Found it." }] });
  });
});
