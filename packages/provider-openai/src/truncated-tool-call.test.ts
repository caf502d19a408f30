import { describe, expect, it } from "vitest";
import { toolCallsOf, type AssistantPart, type ModelRequest, type ToolResultEnvelope } from "@yoke/protocol";
import { ask, collect, fixture, replayPerTest, weatherTool } from "./__fixtures__/test-support.js";

const open = replayPerTest();

const chat = { api: "chat" as const, model: "gpt-4.1-mini" };
const ok = (text: string): ToolResultEnvelope => ({ status: "ok", content: [{ type: "text", text }], timing: { startedAt: 0, endedAt: 1, durationMs: 1 } });
const paris = { type: "tool-call", toolCallId: "call_paris", toolName: "get_weather", rawArguments: '{"city":"Paris"}', arguments: { city: "Paris" } };
const tokyoCut = { type: "tool-call-truncated", toolCallId: "call_tokyo", toolName: "get_weather", rawArguments: '{"city":"To' };
const withItem = (part: object, itemId: string) => ({ ...part, providerMetadata: { openai: { itemId } } });

/** The cut turn's history as the runtime would send it on: the complete call has a result, the cut one none. */
function continuation(content: AssistantPart[]): ModelRequest {
  return {
    messages: [
      ...ask("Weather in Paris and Tokyo?").messages,
      { role: "assistant", content },
      // A stray result for the cut call, to prove it is dropped too.
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "call_paris", toolName: "get_weather", result: ok("sunny") },
          { type: "tool-result", toolCallId: "call_tokyo", toolName: "get_weather", result: ok("?") },
        ],
      },
    ],
    tools: [weatherTool],
  };
}

describe("a tool call cut by the output limit, Responses API", () => {
  it("becomes a tool-call-truncated part and stream part; the call completed before the cut stays a call", async () => {
    const { provider } = await open([fixture("truncated-tool-call.sse")]);
    const { parts, onStreamPart } = collect();
    const response = await provider.generate(ask("Weather in Paris and Tokyo?", { tools: [weatherTool], maxOutputTokens: 24 }), { onStreamPart });
    expect(response.content).toEqual([withItem(paris, "fc_trunc_01"), withItem(tokyoCut, "fc_trunc_02")]);
    expect([response.stopReason, response.rawStopReason]).toEqual(["max_tokens", "incomplete:max_output_tokens"]);
    expect(toolCallsOf(response).map((call) => call.toolCallId)).toEqual(["call_paris"]);
    expect(parts.flatMap((part) => (part.type === "tool-call-end" || part.type === "tool-call-truncated" ? [`${part.type} ${part.toolCallId}`] : []))).toEqual([
      "tool-call-end call_paris",
      "tool-call-truncated call_tokyo",
    ]);
    expect(parts.at(-1)?.type).toBe("finish");

    const whole = await open([fixture("json-truncated-tool-call.json")], { stream: false });
    expect((await whole.provider.generate(ask("Weather in Paris and Tokyo?", { tools: [weatherTool] }))).content).toEqual(response.content);
  });

  it("reads an item marked incomplete by output_item.done the same way (the end-to-end fixtures), and never sends the cut call or a result for it back", async () => {
    const { server, provider } = await open([fixture("e2e-truncated-turn-1.sse"), fixture("e2e-truncated-turn-2.sse")]);
    const { parts, onStreamPart } = collect();
    const first = await provider.generate(ask("Write hello to notes.txt"), { onStreamPart });
    expect(first.content).toEqual([
      { type: "text", text: "I'll write the notes now." },
      {
        type: "tool-call-truncated",
        toolCallId: "call_e2e_write_cut",
        toolName: "write_file",
        rawArguments: '{"path":"notes.txt","content":"hel',
        providerMetadata: { openai: { itemId: "fc_e2e_trunc_1" } },
      },
    ]);
    expect(first.stopReason).toBe("max_tokens");
    expect(parts.filter((part) => part.type === "tool-call-end")).toEqual([]);
    expect(parts.filter((part) => part.type === "tool-call-truncated")).toEqual([{ type: "tool-call-truncated", toolCallId: "call_e2e_write_cut" }]);

    const second = await provider.generate({
      messages: [...ask("Write hello to notes.txt").messages, { role: "assistant", content: first.content }],
      tools: [],
    });
    expect(server.requests[1]!.body).toMatchObject({ input: [{ role: "user" }, { role: "assistant", content: "I'll write the notes now." }] });
    expect((server.requests[1]!.body as { input: unknown[] }).input).toHaveLength(2);
    expect(toolCallsOf(second)).toMatchObject([{ toolCallId: "call_e2e_write", toolName: "write_file", arguments: { path: "notes.txt", content: "hello" } }]);
    expect(second.stopReason).toBe("tool_use");
  });

  it("sends the complete call and its output back, and neither the cut call nor its output", async () => {
    const { server, provider } = await open([fixture("text.sse")]);
    await provider.generate(continuation([paris as AssistantPart, tokyoCut as AssistantPart]));
    expect((server.requests[0]!.body as { input: unknown[] }).input.slice(1)).toEqual([
      { type: "function_call", call_id: "call_paris", name: "get_weather", arguments: '{"city":"Paris"}' },
      { type: "function_call_output", call_id: "call_paris", output: "sunny" },
    ]);
  });
});

describe("a tool call cut by the output limit, Chat Completions", () => {
  it("becomes a tool-call-truncated part and stream part on finish_reason length, streamed or whole", async () => {
    const { provider } = await open([fixture("chat-truncated-tool-call.sse")], chat);
    const { parts, onStreamPart } = collect();
    const response = await provider.generate(ask("Weather in Paris and Tokyo?", { tools: [weatherTool] }), { onStreamPart });
    expect(response.content).toEqual([paris, tokyoCut]);
    expect([response.stopReason, response.rawStopReason]).toEqual(["max_tokens", "length"]);
    expect(parts.flatMap((part) => (part.type === "tool-call-end" || part.type === "tool-call-truncated" ? [`${part.type} ${part.toolCallId}`] : []))).toEqual([
      "tool-call-end call_paris",
      "tool-call-truncated call_tokyo",
    ]);

    const whole = await open([fixture("chat-json-truncated-tool-call.json")], { ...chat, stream: false });
    const read = await whole.provider.generate(ask("Weather in Paris and Tokyo?", { tools: [weatherTool] }));
    expect([read.content, read.stopReason, read.rawStopReason]).toEqual([[paris, tokyoCut], "max_tokens", "length"]);
  });

  it("sends the complete call and its result back, and neither the cut call nor a result for it", async () => {
    const { server, provider } = await open([fixture("chat-text.sse"), fixture("chat-text.sse")], chat);
    await provider.generate(continuation([paris as AssistantPart, tokyoCut as AssistantPart]));
    expect((server.requests[0]!.body as { messages: unknown[] }).messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_paris", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
      },
      { role: "tool", tool_call_id: "call_paris", content: "sunny" },
    ]);
    // An assistant message holding only a cut call has nothing to send: it is left out, not sent empty.
    await provider.generate({
      messages: [...ask("Weather in Tokyo?").messages, { role: "assistant", content: [tokyoCut as AssistantPart] }],
      tools: [weatherTool],
    });
    expect((server.requests[1]!.body as { messages: unknown[] }).messages).toEqual([{ role: "user", content: "Weather in Tokyo?" }]);
  });
});
