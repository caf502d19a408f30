// A paused Anthropic turn continues end to end: a run with the web search server tool
// declared gets `pause_turn` with server_tool_use and web_search_tool_result blocks, the
// runtime asks again in the same turn, and the adapter sends those blocks back exactly as
// they were recorded; the run completes and its usage counts both responses' searches.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createMemoryJournal } from "@yoke/journal";
import type { ServerToolSpec } from "@yoke/protocol";
import { createAnthropicProvider } from "@yoke/provider-anthropic";
import { createHarness, reconstructRequest } from "@yoke/runtime";
import { createReplayServer, readReplayFixture } from "@yoke/testkit/replay";
import { providers } from "./providers.ts";

const fixtures = providers.find((entry) => entry.name === "anthropic")!.fixtures;
const webSearch: ServerToolSpec = { provider: "anthropic", type: "web_search_20250305", name: "web_search", options: { max_uses: 5 } };

/** The blocks a recorded stream carried, as a whole message would: each started block, text and input filled in from its deltas. */
function recordedBlocks(file: string): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  const inputs: string[] = [];
  for (const line of readFileSync(join(fixtures, file), "utf8").split("\n")) {
    if (!line.startsWith("data: ")) continue;
    const event = JSON.parse(line.slice(6)) as {
      type: string;
      index: number;
      content_block: Record<string, unknown>;
      delta: { type: string; text?: string; partial_json?: string };
    };
    if (event.type === "content_block_start") {
      blocks[event.index] = { ...event.content_block };
      inputs[event.index] = "";
    } else if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
      blocks[event.index]!.text = `${String(blocks[event.index]!.text)}${event.delta.text}`;
    } else if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") {
      inputs[event.index] += event.delta.partial_json ?? "";
    } else if (event.type === "content_block_stop" && inputs[event.index] !== "") {
      blocks[event.index]!.input = JSON.parse(inputs[event.index]!) as unknown;
    }
  }
  return blocks;
}

describe("anthropic: a paused turn with server tools, end to end", () => {
  it("continues the paused turn with its server tool blocks sent back verbatim, completes, and reports the server tool uses", async () => {
    const server = await createReplayServer([
      readReplayFixture(fixtures, "web-search-pause-turn.sse", { path: "/v1/messages", headers: { "request-id": "req_011CPaused" } }),
      readReplayFixture(fixtures, "web-search-continued.sse", { path: "/v1/messages", headers: { "request-id": "req_011CContinued" } }),
    ]);
    const provider = createAnthropicProvider({ model: "claude-sonnet-4-6", baseURL: server.url, apiKey: "sk-ant-test" });
    // The run declares the server tool on every request it makes.
    const journal = createMemoryJournal();
    const harness = createHarness({
      journal,
      provider,
      tools: [],
      tenantId: "tenant_pause",
      sleep: async () => undefined,
      context: { serverTools: [webSearch] },
    });

    const result = await harness.start("What is the current Node.js LTS?");
    await server.close();

    expect(result.outcome?.status).toBe("completed");
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests.map(
      (request) => request.body as { tools: unknown[]; messages: { role: string; content: Record<string, unknown>[] }[] },
    );
    expect(first!.tools).toEqual([{ type: "web_search_20250305", name: "web_search", max_uses: 5 }]);
    expect(second!.tools).toEqual(first!.tools);
    // The continuation: the task, then the paused response, its server blocks exactly as recorded.
    const paused = recordedBlocks("web-search-pause-turn.sse");
    expect(second!.messages).toHaveLength(2);
    const resent = second!.messages[1]!;
    expect(resent.role).toBe("assistant");
    expect(resent.content.map((block) => block.type)).toEqual(["text", "server_tool_use", "web_search_tool_result"]);
    expect(resent.content[0]).toMatchObject(paused[0]!);
    expect(resent.content.slice(1)).toEqual(paused.slice(1));

    expect(result.state.usage.serverToolUse).toEqual({ web_search_requests: 2, web_fetch_requests: 0 });
    // The journal alone rebuilds the continuation request, server tool declaration and blocks included.
    const rebuilt = await reconstructRequest(journal, { tenantId: "tenant_pause", runId: result.runId }, 1, { requestInTurn: 1 });
    expect(rebuilt.request.serverTools).toEqual([webSearch]);
    expect(rebuilt.request.messages.map((message) => message.role)).toEqual(["system", "user", "assistant"]);
    const continued = rebuilt.request.messages[2]!;
    expect(continued.role === "assistant" && continued.content.map((part) => part.type)).toEqual(["text", "server-tool-call", "server-tool-result"]);
    const responded = [];
    for await (const event of harness.events(result.runId)) {
      if (event.type === "model.responded") responded.push(event.data.response);
    }
    expect(responded.map((response) => [response.stopReason, response.rawStopReason, response.requestId])).toEqual([
      ["pause", "pause_turn", "req_011CPaused"],
      ["end_turn", "end_turn", "req_011CContinued"],
    ]);
    expect(responded[0]!.content.filter((part) => part.type === "server-tool-result")).toEqual([
      { type: "server-tool-result", provider: "anthropic", toolCallId: "srvtoolu_01NodeLts", resultType: "web_search_tool_result", raw: paused[2] },
    ]);
  });
});
