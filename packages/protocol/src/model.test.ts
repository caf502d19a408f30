import { describe, expect, it } from "vitest";
import { AssistantPartSchema, ModelRequestSchema, toolCallsOf, withUsageTotals } from "./model.js";
import { addUsage } from "./provider.js";

describe("usage totals", () => {
  it("derives uncached input and total from the counts (inputTokens includes cached input)", () => {
    expect(withUsageTotals({ inputTokens: 100, outputTokens: 20, cacheReadTokens: 70, cacheWriteTokens: 10 })).toEqual({
      inputTokens: 100,
      outputTokens: 20,
      cacheReadTokens: 70,
      cacheWriteTokens: 10,
      uncachedInputTokens: 20,
      totalTokens: 120,
    });
    expect(withUsageTotals({ inputTokens: 5, outputTokens: 1 })).toMatchObject({ uncachedInputTokens: 5, totalTokens: 6 });
  });

  it("adds derived figures and server tool uses by name", () => {
    const a = withUsageTotals({ inputTokens: 10, outputTokens: 2, cacheReadTokens: 4, serverToolUse: { web_search_requests: 1 } });
    const b = withUsageTotals({ inputTokens: 6, outputTokens: 3, serverToolUse: { web_search_requests: 2, web_fetch_requests: 1 } });
    expect(addUsage(a, b)).toEqual({
      inputTokens: 16,
      outputTokens: 5,
      cacheReadTokens: 4,
      uncachedInputTokens: 12,
      totalTokens: 21,
      serverToolUse: { web_search_requests: 3, web_fetch_requests: 1 },
    });
    expect(addUsage({ inputTokens: 1, outputTokens: 1 }, { inputTokens: 1, outputTokens: 1 })).toEqual({ inputTokens: 2, outputTokens: 2 });
  });
});

describe("assistant parts", () => {
  it("a refusal, a truncated call and server tool blocks are parts of their own, never tool calls", () => {
    const content = [
      { type: "refusal", text: "I can't help with that." },
      { type: "tool-call-truncated", toolCallId: "c1", toolName: "write", rawArguments: '{"path":"a' },
      {
        type: "server-tool-call",
        provider: "anthropic",
        toolCallId: "srv_1",
        toolName: "web_search",
        arguments: { query: "q" },
        raw: { type: "server_tool_use", id: "srv_1" },
      },
      { type: "server-tool-result", provider: "anthropic", toolCallId: "srv_1", resultType: "web_search_tool_result", raw: { type: "web_search_tool_result" } },
    ].map((part) => AssistantPartSchema.parse(part));
    expect(toolCallsOf({ content })).toEqual([]);
  });

  it("a request can carry stop sequences, strict tools and server tools", () => {
    const request = ModelRequestSchema.parse({
      messages: [],
      tools: [{ name: "t", description: "", inputSchema: { type: "object" }, strict: true }],
      stopSequences: ["END"],
      serverTools: [{ provider: "anthropic", type: "web_search_20250305", name: "web_search", options: { max_uses: 3 } }],
    });
    expect(request.tools[0]!.strict).toBe(true);
    expect(ModelRequestSchema.safeParse({ messages: [], tools: [], stopSequences: [""] }).success).toBe(false);
  });
});
