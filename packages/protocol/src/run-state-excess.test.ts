import { describe, expect, it } from "vitest";
import { YokeError } from "./errors.js";
import { GENESIS_HASH } from "./events.js";
import type { ToolResultEnvelope } from "./model.js";
import { reduceRun } from "./run-state.js";
import { eventsOf, toolUse } from "./__fixtures__/events-of.js";

type Draft = { type: string; data: Record<string, unknown> };

const envelope = (code: string): ToolResultEnvelope => ({
  status: "error",
  content: [{ type: "text", text: code }],
  error: { code, message: code },
  timing: { startedAt: 0, endedAt: 0, durationMs: 0 },
});
const head: Draft[] = [
  {
    type: "run.started",
    data: { sessionId: "s", task: "t", tools: [], limits: { maxTurns: 3, maxToolCallsPerTurn: 2 }, release: { runtime: "test", eventSchemaVersion: 1 } },
  },
  { type: "turn.started", data: { turnId: "turn_1", index: 1 } },
  { type: "model.requested", data: { turnId: "turn_1", requestHash: GENESIS_HASH, messageCount: 1 } },
  {
    type: "model.responded",
    data: { turnId: "turn_1", latencyMs: 0, response: toolUse(["c0", "t"], ["c1", "t"], ["c2", "t"], ["c3", "t"], ["c4", "t"]) },
  },
];
const rejected = (toolCallId: string): Draft => ({
  type: "tool.rejected",
  data: { turnId: "turn_1", toolCallId, toolName: "t", code: "TOOL_UNKNOWN", result: envelope("TOOL_UNKNOWN") },
});
const excess = (fromIndex: number, count: number, toolCallId = `c${fromIndex}`): Draft => ({
  type: "tool.excess_rejected",
  data: { turnId: "turn_1", toolCallId, toolName: "t", fromIndex, count, code: "TOOL_CALL_LIMIT", result: envelope("TOOL_CALL_LIMIT") },
});

function refusal(drafts: Draft[]): string {
  try {
    reduceRun(eventsOf(drafts));
  } catch (error) {
    if (YokeError.isInstance(error) && error.code === "EVENT_INVALID") return error.message;
    throw error;
  }
  throw new YokeError("INTERNAL", "the fold did not refuse");
}

/** Issue 33, item 4: the calls past the cap, answered together. */
describe("tool.excess_rejected in the fold", () => {
  it("answers the first call past the cap and leaves the others out of the response's message: every call shown has one result", () => {
    const state = reduceRun(eventsOf([...head, rejected("c0"), excess(2, 3), rejected("c1")]));
    expect(state.phase).toBe("ready");
    const [, assistant, tool] = state.messages;
    expect(assistant?.role === "assistant" && assistant.content.map((part) => part.type === "tool-call" && part.toolCallId)).toEqual(["c0", "c1", "c2"]);
    expect(tool?.role === "tool" && tool.content.map((part) => `${part.toolCallId}:${part.result.error?.code}`)).toEqual([
      "c0:TOOL_UNKNOWN",
      "c1:TOOL_UNKNOWN",
      "c2:TOOL_CALL_LIMIT",
    ]);
    // The journaled response itself keeps every call (what the model said).
    expect(state.lastResponse?.content).toHaveLength(5);
  });

  it("a state taken before keeps the message it saw", () => {
    const before = reduceRun(eventsOf(head));
    reduceRun(eventsOf([...head, excess(2, 3)]));
    expect(before.messages[1]?.role === "assistant" && before.messages[1].content).toHaveLength(5);
  });

  it("refuses an answer that is not the response's last pending calls, names another first call, or comes outside a tool batch", () => {
    const message = /^event 4 \(tool\.excess_rejected\).*names calls/;
    expect(refusal([...head, excess(2, 2)])).toMatch(message);
    expect(refusal([...head, excess(2, 4)])).toMatch(message);
    expect(refusal([...head, excess(2, 3, "c3")])).toMatch(message);
    expect(refusal([...head, rejected("c4"), excess(2, 3)])).toMatch(/^event 5 \(tool\.excess_rejected\).*names calls/);
    expect(refusal([...head.slice(0, 3), excess(0, 1)])).toMatch(/tool\.excess_rejected in phase awaiting_response/);
  });
});
