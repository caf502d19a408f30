// The compiled request's wire bytes: a tool turn through the real Anthropic adapter (the SDK
// client aimed at testkit's loopback replay server), recording the body of every HTTP request
// it sent as well as the journal and the `ModelRequest` the adapter was given.
import Anthropic from "@anthropic-ai/sdk";
import { createMemoryJournal } from "@yoke/journal";
import { canonicalJson, type JournalEvent, type ModelRequest } from "@yoke/protocol";
import { createAnthropicProvider } from "@yoke/provider-anthropic";
import { createReplayServer, type ReplayExchange } from "@yoke/testkit/replay";
import { RUN, TENANT, corpusHarness, stillClock } from "./corpus-kit.js";
import { foldLines } from "./fold-digest.js";
import { outcomeOf } from "./record-scenario.js";
import { echoTool } from "./scenario-tools.js";

export const WIRE_SCENARIO = "wire-anthropic-tool-turn";
export const WIRE_FILES = ["journal", "requests", "wire", "results", "fold"] as const;

/** One streamed Anthropic message: `blocks` are (content block start, its deltas). */
function streamed(id: string, blocks: { start: unknown; deltas: unknown[] }[], stopReason: string, usage: { input: number; output: number }) {
  const events: { event: string; data: unknown }[] = [
    {
      event: "message_start",
      data: {
        type: "message_start",
        message: {
          id,
          type: "message",
          role: "assistant",
          model: "claude-sonnet-4-6",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: usage.input, output_tokens: 1 },
        },
      },
    },
  ];
  blocks.forEach((block, index) => {
    events.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: block.start } });
    for (const delta of block.deltas) events.push({ event: "content_block_delta", data: { type: "content_block_delta", index, delta } });
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  });
  events.push({
    event: "message_delta",
    data: { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output } },
  });
  events.push({ event: "message_stop", data: { type: "message_stop" } });
  return events;
}

const EXCHANGES: ReplayExchange[] = [
  {
    path: "/v1/messages",
    headers: { "request-id": "req_wire_1" },
    sse: streamed(
      "msg_wire_1",
      [{ start: { type: "tool_use", id: "toolu_wire_1", name: "echo", input: {} }, deltas: [{ type: "input_json_delta", partial_json: '{"text":"hi"}' }] }],
      "tool_use",
      { input: 40, output: 12 },
    ),
  },
  {
    path: "/v1/messages",
    headers: { "request-id": "req_wire_2" },
    sse: streamed("msg_wire_2", [{ start: { type: "text", text: "" }, deltas: [{ type: "text_delta", text: "done" }] }], "end_turn", { input: 60, output: 2 }),
  },
];

export async function recordWire(): Promise<Record<(typeof WIRE_FILES)[number], string[]>> {
  const server = await createReplayServer(EXCHANGES);
  try {
    const client = new Anthropic({ apiKey: "sk-ant-corpus", baseURL: server.url, maxRetries: 0 });
    const adapter = createAnthropicProvider({ model: "claude-sonnet-4-6", client, now: () => 1_000 });
    const requests: string[] = [];
    const provider = {
      ...adapter,
      generate: (request: ModelRequest, options?: Parameters<typeof adapter.generate>[1]) => {
        requests.push(canonicalJson(request));
        return adapter.generate(request, options);
      },
    };
    const journal = createMemoryJournal();
    const harness = corpusHarness(journal, provider, stillClock(), 1, { tools: [echoTool], systemPrompt: "You are terse." });
    const results = [await outcomeOf(() => harness.start("Echo hi.", { runId: RUN }))];
    const events: JournalEvent[] = [];
    for await (const event of journal.read({ tenantId: TENANT, runId: RUN })) events.push(event);
    const wire = server.requests.map((request) => canonicalJson({ method: request.method, path: request.path, rawBody: request.rawBody }));
    return { journal: events.map((event) => canonicalJson(event)), requests, wire, results, fold: foldLines(new Map([[RUN, events]])) };
  } finally {
    await server.close();
  }
}
