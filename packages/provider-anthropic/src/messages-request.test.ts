import type { ModelRequest } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { messagesBody } from "./messages-request.js";

const request = (argumentsInOrder: string, parsed: Record<string, unknown>): ModelRequest =>
  ({
    messages: [
      { role: "user", content: [{ type: "text", text: "Book it." }] },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "toolu_1", toolName: "book", rawArguments: argumentsInOrder, arguments: parsed }] },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "toolu_1",
            toolName: "book",
            result: { status: "ok", content: [{ type: "text", text: "booked" }], timing: { startedAt: 0, endedAt: 1, durationMs: 1 } },
          },
        ],
      },
    ],
    tools: [],
  }) as unknown as ModelRequest;

describe("messagesBody: tool_use blocks", () => {
  it("send the input in the key order the model wrote, not the journal's canonical order", () => {
    // What a resumed run holds: arguments re-read from the journal, keys sorted.
    const body = messagesBody(
      request('{"time":"19:00","date":"2026-12-24"}', { date: "2026-12-24", time: "19:00" }),
      {},
      { modelId: "claude-sonnet-4-6", stream: true },
    );
    expect(JSON.stringify(body.messages)).toContain('"input":{"time":"19:00","date":"2026-12-24"}');
  });

  it("fall back to the parsed arguments, or {}, when the raw arguments are not a JSON object", () => {
    const parsed = messagesBody(request('{"date": "2026-12-2', { date: "x" }), {}, { modelId: "claude-sonnet-4-6", stream: true });
    expect(JSON.stringify(parsed.messages)).toContain('"input":{"date":"x"}');
    const empty = messagesBody(request("[1]", {}), {}, { modelId: "claude-sonnet-4-6", stream: true });
    expect(JSON.stringify(empty.messages)).toContain('"input":{}');
  });
});
