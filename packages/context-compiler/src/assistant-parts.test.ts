import { describe, expect, it } from "vitest";
import { canonicalJson, toolCallsOf, type Message } from "@yoke/protocol";
import { extractiveSummary } from "./compaction.js";
import { compile } from "./compiler.js";
import { CONFIG, TOOLS, makeTranscript } from "./__fixtures__/runs.js";
import type { CompileConfig, ContextInput, SourceMessage } from "./input.js";
import { visibleText } from "./render.js";
import { estimatedTokenCounter } from "./tokenizer.js";

const CUT_ARGUMENTS = `{"path":"notes.md","text":"${"All work and no play. ".repeat(900)}`;

/** An assistant message with every part the protocol has beside text and complete calls, as a provider returns it. */
const assistant = (): Message => ({
  role: "assistant",
  content: [
    { type: "reasoning", text: "First, search.\n\nThen write.", summary: ["First, search.", "Then write."] },
    {
      type: "server-tool-call",
      provider: "anthropic",
      toolCallId: "srvtoolu_1",
      toolName: "web_search",
      arguments: { query: "yoke", max: 3 },
      raw: { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "yoke", max: 3 } },
    },
    {
      type: "server-tool-result",
      provider: "anthropic",
      toolCallId: "srvtoolu_1",
      resultType: "web_search_tool_result",
      raw: { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [{ type: "web_search_result", url: "https://example.com", title: "Yoke" }] },
    },
    { type: "text", text: "Writing the notes." },
    { type: "tool-call-truncated", toolCallId: "call_7", toolName: "write_file", rawArguments: CUT_ARGUMENTS },
  ],
});

const refusal = (): Message => ({ role: "assistant", content: [{ type: "refusal", text: "I can't help with that." }] });

/** The same value with every object's keys in reverse order: what a journal round trip (sorted keys) does to a provider's block. */
function reverseKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reverseKeys) as T;
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, member]) => [key, reverseKeys(member)]),
  ) as T;
}

const note: Message = { role: "user", content: [{ type: "text", text: "[runtime] The output token limit cut off your call to write_file (call call_7)." }] };

function inputWith(transcript: SourceMessage[]): ContextInput {
  return { revision: transcript.length, systemPrompt: "Be careful.", task: "Write notes.", tools: TOOLS, transcript };
}

describe("assistant parts beyond text and calls", () => {
  it("count the same whatever the key order of a server tool block (live from the provider, or read back from the journal)", () => {
    expect(visibleText(reverseKeys(assistant()))).toBe(visibleText(assistant()));
    const items = (message: Message) => [{ id: "message:1", message }];
    expect(extractiveSummary({ items: items(reverseKeys(assistant())), maxChars: 4_000 })).toBe(
      extractiveSummary({ items: items(assistant()), maxChars: 4_000 }),
    );
  });

  it("compile to the same bytes, hash and token counts whatever their key order, with the model's tokenizer", () => {
    const transcript = (message: Message): SourceMessage[] => [
      { id: "message:1", message },
      { id: "message:2", message: note },
      { id: "message:3", message: refusal() },
    ];
    const a = compile(inputWith(transcript(assistant())), CONFIG);
    const b = compile(inputWith(transcript(reverseKeys(assistant()))), CONFIG);
    expect(b.bytes).toBe(a.bytes);
    expect(b.manifest).toEqual(a.manifest);
  });

  it("never offer a cut call as a call, and do not count its cut arguments (they are never sent)", () => {
    const { request, manifest } = compile(
      inputWith([
        { id: "message:1", message: assistant() },
        { id: "message:2", message: note },
      ]),
      CONFIG,
    );
    const shown = request.messages.find((message) => message.role === "assistant")!;
    expect(shown.role === "assistant" && shown.content.map((part) => part.type)).toEqual([
      "reasoning",
      "server-tool-call",
      "server-tool-result",
      "text",
      "tool-call-truncated",
    ]);
    expect(request.messages.flatMap((message) => (message.role === "assistant" ? toolCallsOf(message) : []))).toEqual([]);
    const item = manifest.items.find((entry) => entry.id === "message:1")!;
    expect(item.tokens).toBeLessThan(200);
    expect(visibleText(assistant())).not.toContain("All work and no play");
  });

  it("survive compaction as a summary that says the cut call was not run, never as a call", () => {
    const SMALL: CompileConfig = {
      ...CONFIG,
      contextWindow: 3_000,
      maxOutputTokens: 500,
      tokenCounter: estimatedTokenCounter(),
      compaction: { threshold: 0.6, keepRecentMessages: 4 },
    };
    const head: SourceMessage[] = [
      { id: "message:1", message: assistant() },
      { id: "message:2", message: note },
      { id: "message:3", message: refusal() },
    ];
    const rest = makeTranscript(40).map((source, index) => ({ ...source, id: `message:${index + 4}` }));
    const result = compile(inputWith([...head, ...rest]), SMALL);
    const compaction = result.compactions[0]!;
    expect(compaction.replaces.slice(0, 3)).toEqual(["message:1", "message:2", "message:3"]);
    expect(compaction.summary).toContain("[message:1] ");
    expect(compaction.summary).toContain("call to write_file cut off by the output limit (not run)");
    expect(compaction.summary).not.toContain("called write_file");
    expect(compaction.summary).toContain("anthropic ran web_search(");
    expect(compaction.summary).toContain("refused: I can't help with that.");
    const calls = result.request.messages.flatMap((message) => (message.role === "assistant" ? toolCallsOf(message) : []));
    expect(calls.map((call) => call.toolCallId)).not.toContain("call_7");
    expect(canonicalJson(result.request)).not.toContain('"tool-call-truncated"');
  });
});
