import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { ModelRequest, ServerToolSpec } from "@yoke/protocol";
import { addUsage } from "@yoke/protocol/provider-utils";
import { createAnthropicProvider } from "./index.js";
import { ask, collect, fixture, rejection, replay, weatherTool, type Replay } from "./__fixtures__/test-support.js";

let current: Replay | undefined;
async function open(...args: Parameters<typeof replay>): Promise<Replay> {
  await current?.server.close();
  current = await replay(...args);
  return current;
}
afterEach(async () => {
  await current?.server.close();
  current = undefined;
});

const webSearch: ServerToolSpec = {
  provider: "anthropic",
  type: "web_search_20250305",
  name: "web_search",
  options: { max_uses: 3, allowed_domains: ["nodejs.org"] },
};
const webFetch: ServerToolSpec = { provider: "anthropic", type: "web_fetch_20250910", name: "web_fetch" };

/** The content blocks a recorded stream's content_block_start events carry, by index. */
function startedBlocks(file: string): Record<string, unknown>[] {
  const text = readFileSync(fileURLToPath(new URL(`./__fixtures__/${file}`, import.meta.url)), "utf8");
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line.includes('"content_block_start"'))
    .map((line) => (JSON.parse(line.slice(6)) as { content_block: Record<string, unknown> }).content_block);
}

describe("Anthropic server tools", () => {
  it("declares web search and web fetch in the capability matrix, and sends declared server tools in tools", async () => {
    expect(createAnthropicProvider({ model: "claude-sonnet-4-6" }).capabilities.serverTools).toEqual(["web_search_20250305", "web_fetch_20250910"]);
    expect(createAnthropicProvider({ model: "claude-next" }).capabilities.serverTools).toBeUndefined();
    const { server, provider } = await open([fixture("text.sse")]);
    await provider.generate(ask("Node LTS?", { tools: [weatherTool], serverTools: [webSearch, webFetch] }));
    expect((server.requests[0]!.body as { tools: unknown[] }).tools.slice(1)).toEqual([
      { type: "web_search_20250305", name: "web_search", max_uses: 3, allowed_domains: ["nodejs.org"] },
      { type: "web_fetch_20250910", name: "web_fetch" },
    ]);
  });

  it("refuses, before any request, a server tool of another provider, an undeclared type, or options that rename it", async () => {
    const { server, provider } = await open([]);
    const errors = await Promise.all(
      [
        { provider: "openai", type: "web_search_preview", name: "web_search" },
        { provider: "anthropic", type: "code_execution_20250825", name: "code_execution" },
        { ...webSearch, options: { name: "search" } },
      ].map((spec) => rejection(provider.generate(ask("hi", { serverTools: [spec] })))),
    );
    expect(errors.map((error) => error.code)).toEqual(Array(3).fill("PROVIDER_ADMISSION_REJECTED"));
    expect(errors[1]!.message).toContain("code_execution_20250825");
    await expect(rejection(createAnthropicProvider({ model: "claude-next" }).generate(ask("hi", { serverTools: [webSearch] })))).resolves.toMatchObject({
      code: "PROVIDER_ADMISSION_REJECTED",
    });
    expect(server.requests).toHaveLength(0);
  });

  it.each([undefined, 1, 2, 3])(
    "maps a paused turn's server_tool_use and web_search_tool_result blocks, streamed (split seed %s), to parts that keep the blocks verbatim",
    async (seed) => {
      const { provider } = await open([fixture("web-search-pause-turn.sse")], {}, seed === undefined ? {} : { seed });
      const { parts, onStreamPart } = collect();
      const response = await provider.generate(ask("What is the current Node.js LTS?", { serverTools: [webSearch] }), { onStreamPart });
      const [, started, result] = startedBlocks("web-search-pause-turn.sse");
      const call = { ...started, input: { query: "Node.js LTS release" } };
      expect(response).toMatchObject({ stopReason: "pause", rawStopReason: "pause_turn" });
      expect(response.warnings).toBeUndefined();
      expect(response.content).toEqual([
        { type: "text", text: "I'll search for the current Node.js LTS release." },
        {
          type: "server-tool-call",
          provider: "anthropic",
          toolCallId: "srvtoolu_01NodeLts",
          toolName: "web_search",
          arguments: { query: "Node.js LTS release" },
          raw: call,
        },
        { type: "server-tool-result", provider: "anthropic", toolCallId: "srvtoolu_01NodeLts", resultType: "web_search_tool_result", raw: result },
      ]);
      expect(parts.filter((part) => part.type === "server-tool-call" || part.type === "server-tool-result")).toEqual([
        { type: "server-tool-call", part: response.content[1] },
        { type: "server-tool-result", part: response.content[2] },
      ]);
      // Server tool input is not a client call's: no tool-call-* parts.
      expect(parts.some((part) => part.type.startsWith("tool-call"))).toBe(false);
      expect(response.usage).toEqual({
        inputTokens: 410,
        outputTokens: 89,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        uncachedInputTokens: 410,
        totalTokens: 499,
        serverToolUse: { web_search_requests: 1, web_fetch_requests: 0 },
      });
    },
  );

  it("sends the paused turn's blocks back in place, exactly as they came, to continue it", async () => {
    const { server, provider } = await open([fixture("web-search-pause-turn.sse"), fixture("web-search-continued.sse")]);
    const request: ModelRequest = { ...ask("What is the current Node.js LTS?"), serverTools: [webSearch], stablePrefixMessages: 2 };
    const paused = await provider.generate(request);
    const continued = await provider.generate({ ...request, messages: [...request.messages, { role: "assistant", content: paused.content }] });
    const [text, started, result] = startedBlocks("web-search-pause-turn.sse");
    const { messages } = server.requests[1]!.body as { messages: { role: string; content: unknown[] }[] };
    expect(messages[1]).toEqual({
      role: "assistant",
      // The cache breakpoint goes on the text block; the server blocks go back untouched.
      content: [
        { ...text, text: "I'll search for the current Node.js LTS release.", cache_control: { type: "ephemeral" } },
        { ...started, input: { query: "Node.js LTS release" } },
        result,
      ],
    });
    expect(paused.content[2]).toEqual(expect.objectContaining({ raw: result }));
    expect(continued).toMatchObject({ stopReason: "end_turn", usage: { serverToolUse: { web_search_requests: 1 } } });
    expect(addUsage(paused.usage, continued.usage).serverToolUse).toEqual({ web_search_requests: 2, web_fetch_requests: 0 });
  });

  it("reads a whole (stream: false) message with web fetch blocks the same way, and drops another provider's server parts when sending back", async () => {
    const { server, provider } = await open([fixture("json-web-fetch.json"), fixture("json-web-fetch.json")], { stream: false });
    const response = await provider.generate(ask("What changed in 2.0.0?", { serverTools: [webFetch] }));
    const body = JSON.parse(readFileSync(fileURLToPath(new URL("./__fixtures__/json-web-fetch.json", import.meta.url)), "utf8")) as {
      body: { content: Record<string, unknown>[] };
    };
    const [call, result] = body.body.content;
    expect(response.content).toEqual([
      {
        type: "server-tool-call",
        provider: "anthropic",
        toolCallId: "srvtoolu_01FetchDocs",
        toolName: "web_fetch",
        arguments: { url: "https://example.com/changelog.txt" },
        raw: call,
      },
      { type: "server-tool-result", provider: "anthropic", toolCallId: "srvtoolu_01FetchDocs", resultType: "web_fetch_tool_result", raw: result },
      { type: "text", text: "Version 2.0.0 added streaming adapters." },
    ]);
    expect(response.usage.serverToolUse).toEqual({ web_search_requests: 0, web_fetch_requests: 1 });
    const foreign = {
      type: "server-tool-call" as const,
      provider: "openai",
      toolCallId: "ws_1",
      toolName: "web_search",
      arguments: {},
      raw: { type: "web_search_call", id: "ws_1" },
    };
    await provider.generate({
      ...ask("What changed in 2.0.0?"),
      messages: [...ask("What changed?").messages, { role: "assistant", content: [foreign, ...response.content] }, ...ask("Thanks").messages],
    });
    expect((server.requests[1]!.body as { messages: { content: unknown[] }[] }).messages[1]!.content).toEqual([
      call,
      result,
      { type: "text", text: "Version 2.0.0 added streaming adapters." },
    ]);
  });
});
