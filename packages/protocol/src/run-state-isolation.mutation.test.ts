// Kills mutants of run-state.ts that survived `pnpm mutate protocol` (reports/mutation/protocol.md,
// "Still open"): snapshots and forks sharing arrays with the accumulator, the phase checks of
// completion.checked and input.added, an empty response, results of calls that share an id
// or arrive out of proposal order, and the initial state's message.
import { describe, expect, it } from "vitest";
import { YokeError } from "./errors.js";
import { GENESIS_HASH, type JournalEvent } from "./events.js";
import type { Message, ModelResponse } from "./model.js";
import { RunStateAccumulator, reduceRun } from "./run-state.js";
import { eventsOf, toolUse } from "./__fixtures__/events-of.js";

const started = {
  type: "run.started",
  data: { sessionId: "session_1", task: "tidy the inbox", tools: [], limits: { maxTurns: 3 }, release: { runtime: "test", eventSchemaVersion: 1 } },
};
const turn = [
  { type: "turn.started", data: { turnId: "turn_1", index: 1 } },
  { type: "model.requested", data: { turnId: "turn_1", requestHash: GENESIS_HASH, messageCount: 1 } },
];
const responded = (response: ModelResponse) => ({ type: "model.responded", data: { turnId: "turn_1", response, latencyMs: 0 } });
const text = (value: string, stopReason: ModelResponse["stopReason"] = "end_turn"): ModelResponse => ({
  provider: "scripted",
  model: "scripted-1",
  stopReason,
  usage: { inputTokens: 0, outputTokens: 0 },
  content: value === "" ? [] : [{ type: "text", text: value }],
});
const rejected = (toolCallId: string, message: string) => ({
  type: "tool.rejected",
  data: {
    turnId: "turn_1",
    toolCallId,
    toolName: "t",
    code: "TOOL_UNKNOWN",
    result: {
      status: "error",
      content: [{ type: "text", text: message }],
      error: { code: "TOOL_UNKNOWN", message },
      timing: { startedAt: 0, endedAt: 0, durationMs: 0 },
    },
  },
});

/** A message's parts (content given as a plain string is one text part). */
function partsOf(message: Message): Exclude<Message["content"], string> {
  if (typeof message.content === "string") throw new Error("expected parts");
  return message.content;
}

function accumulate(drafts: { type: string; data: Record<string, unknown> }[]): { accumulator: RunStateAccumulator; events: JournalEvent[] } {
  const events = eventsOf(drafts);
  const accumulator = new RunStateAccumulator();
  for (const event of events) accumulator.apply(event);
  return { accumulator, events };
}

describe("run state: what survived mutation", () => {
  it("starts with the task as the only message, from event 0, and no usage", () => {
    const state = reduceRun(eventsOf([started]));
    expect(state.messages).toEqual([{ role: "user", content: [{ type: "text", text: "tidy the inbox" }] }]);
    expect(state.messageSeqs).toEqual([0]);
    expect([state.phase, state.turns, state.usage, state.pendingToolCalls, state.actions]).toEqual(["ready", 0, { inputTokens: 0, outputTokens: 0 }, [], []]);
  });

  it("a snapshot is a copy: later events and edits to it do not reach each other", () => {
    const call = toolUse(["call_1", "t"]);
    const { accumulator } = accumulate([started, ...turn, responded(call)]);
    const before = accumulator.snapshot();
    const [next] = eventsOf([started, ...turn, responded(call), rejected("call_1", "no such tool")]).slice(-1);
    accumulator.apply(next!);
    expect(before.pendingToolCalls).toHaveLength(1);
    expect(before.messages).toHaveLength(2);
    expect(before.messageSeqs).toHaveLength(2);
    const after = accumulator.snapshot();
    expect(after.messages).toHaveLength(3);
    (after.messages as unknown[]).push("edited");
    (after.messageSeqs as number[]).push(99);
    (after.pendingToolCalls as unknown[]).push("edited");
    (after.actions as unknown[]).push("edited");
    const again = accumulator.snapshot();
    expect([again.messages.length, again.messageSeqs.length, again.pendingToolCalls.length, again.actions.length]).toEqual([3, 3, 0, 0]);
  });

  it("a fork is independent: events applied to it do not reach the accumulator, nor the other way round", () => {
    const { accumulator, events } = accumulate([started, ...turn, responded(toolUse(["call_1", "t"], ["call_2", "t"]))]);
    const fork = accumulator.fork();
    const [first, second] = eventsOf([started, ...turn, responded(toolUse(["call_1", "t"])), rejected("call_1", "a"), rejected("call_2", "b")]).slice(-2);
    fork.apply(first!);
    expect(accumulator.peek().pendingToolCalls.map((call) => call.toolCallId)).toEqual(["call_1", "call_2"]);
    expect(fork.peek().pendingToolCalls.map((call) => call.toolCallId)).toEqual(["call_2"]);
    // The fork's collected result is its own: the accumulator still needs both.
    accumulator.apply({ ...second!, seq: events.length });
    expect(accumulator.peek().pendingToolCalls.map((call) => call.toolCallId)).toEqual(["call_1"]);
    expect(fork.peek().messages).toHaveLength(2);
    accumulator.apply({ ...first!, seq: events.length + 1 });
    const results = partsOf(accumulator.peek().messages.at(-1)!);
    expect(results.map((part) => (part.type === "tool-result" ? part.toolCallId : part.type))).toEqual(["call_1", "call_2"]);
  });

  it("an empty response adds no assistant message and waits for the loop (phase responded)", () => {
    const state = reduceRun(eventsOf([started, ...turn, responded(text(""))]));
    expect(state.messages).toHaveLength(1);
    expect(state.phase).toBe("responded");
    expect(reduceRun(eventsOf([started, ...turn, responded(text("done"))])).messages).toHaveLength(2);
  });

  it("completion.checked only on an answer, input.added only between turns or on an answer", () => {
    const checked = { type: "completion.checked", data: { turnId: "turn_1", passed: true } };
    const input = { type: "input.added", data: { source: "operator", content: [{ type: "text", text: "also archive" }] } };
    expect(reduceRun(eventsOf([started, ...turn, responded(text("done")), checked])).phase).toBe("responded");
    expect(() => reduceRun(eventsOf([started, ...turn, checked]))).toThrow(YokeError);
    expect(() => reduceRun(eventsOf([started, ...turn, responded(toolUse(["call_1", "t"])), checked]))).toThrow(YokeError);
    expect(reduceRun(eventsOf([started, input])).messages).toHaveLength(2);
    expect(() => reduceRun(eventsOf([started, ...turn, input]))).toThrow(YokeError);
    expect(() => reduceRun(eventsOf([started, ...turn, responded(toolUse(["call_1", "t"])), input]))).toThrow(YokeError);
  });

  it("calls that share an id get their results in proposal order, one tool message for the batch", () => {
    const state = reduceRun(
      eventsOf([
        started,
        ...turn,
        responded(toolUse(["call_1", "t"], ["call_1", "t"], ["call_2", "t"])),
        rejected("call_1", "first"),
        rejected("call_2", "third"),
        rejected("call_1", "second"),
      ]),
    );
    expect(state.phase).toBe("ready");
    expect(state.messages).toHaveLength(3);
    const results = partsOf(state.messages.at(-1)!).map((part) =>
      part.type === "tool-result" ? `${part.toolCallId}:${(part.result.content[0] as { text: string }).text}` : part.type,
    );
    expect(results).toEqual(["call_1:first", "call_1:second", "call_2:third"]);
    expect(state.messageSeqs.at(-1)).toBe(6);
  });
});
