import { describe, expect, it } from "vitest";
import { GENESIS_HASH } from "./events.js";
import type { ToolResultEnvelope } from "./model.js";
import { RunStateAccumulator, reduceRun } from "./run-state.js";
import { eventsOf, toolUse } from "./__fixtures__/events-of.js";

const result = (text: string, status: "ok" | "error" = "ok"): ToolResultEnvelope => ({
  status,
  content: [{ type: "text", text }],
  ...(status === "error" ? { error: { code: "TOOL_DUPLICATE_CALL_ID", message: text } } : {}),
  timing: { startedAt: 0, endedAt: 0, durationMs: 0 },
});

const response = toolUse(["call_1", "echo"], ["call_1", "echo"]);

const head = [
  {
    type: "run.started",
    data: { sessionId: "session_1", task: "t", tools: [], limits: { maxTurns: 3 }, release: { runtime: "test", eventSchemaVersion: 1 } },
  },
  { type: "turn.started", data: { turnId: "turn_1", index: 1 } },
  { type: "model.requested", data: { turnId: "turn_1", requestHash: GENESIS_HASH, messageCount: 1 } },
  { type: "model.responded", data: { turnId: "turn_1", response, latencyMs: 0 } },
];
const callRef = { turnId: "turn_1", toolCallId: "call_1", toolName: "echo" };
const started = { type: "tool.started", data: { ...callRef, actionId: "action_1", attemptId: "attempt_1", attempt: 1, input: {} } };
const rejected = { type: "tool.rejected", data: { ...callRef, code: "TOOL_DUPLICATE_CALL_ID", result: result("duplicate", "error") } };
const completed = { type: "tool.completed", data: { ...callRef, actionId: "action_1", attemptId: "attempt_1", result: result("first") } };

describe("RunStateAccumulator with repeated tool-call ids", () => {
  it("keeps the started call pending when the repeat is rejected", () => {
    const state = reduceRun(eventsOf([...head, started, rejected]));
    expect(state.phase).toBe("tools_pending");
    expect(state.pendingToolCalls).toEqual([
      { index: 0, toolCallId: "call_1", toolName: "echo", arguments: {}, started: { actionId: "action_1", attemptId: "attempt_1", attempt: 1 } },
    ]);
  });

  it("orders results by proposal index, not by arrival", () => {
    const state = reduceRun(eventsOf([...head, started, rejected, completed]));
    expect(state.phase).toBe("ready");
    const last = state.messages.at(-1)!;
    expect(last.role).toBe("tool");
    if (last.role === "tool") expect(last.content.map((part) => part.result.content[0]!.text)).toEqual(["first", "duplicate"]);
  });

  it("matches a retry attempt to the call already started under its action id", () => {
    const retry = { type: "tool.started", data: { ...started.data, attemptId: "attempt_2", attempt: 2 } };
    const state = reduceRun(eventsOf([...head, started, rejected, retry]));
    expect(state.pendingToolCalls).toHaveLength(1);
    expect(state.pendingToolCalls[0]!.started).toEqual({ actionId: "action_1", attemptId: "attempt_2", attempt: 2 });
  });
});

describe("RunStateAccumulator.acknowledge", () => {
  it("sets the head hash of events folded ahead of their append", () => {
    const accumulator = new RunStateAccumulator();
    expect(accumulator.length).toBe(0);
    for (const event of eventsOf(head)) accumulator.apply(event);
    expect(accumulator.length).toBe(head.length);
    accumulator.acknowledge({ length: head.length, hash: "a".repeat(64) });
    expect(accumulator.peek().headHash).toBe("a".repeat(64));
  });

  it("refuses a head of another length (INTERNAL)", () => {
    const accumulator = new RunStateAccumulator();
    expect(() => accumulator.acknowledge({ length: 0, hash: GENESIS_HASH })).toThrow(expect.objectContaining({ code: "INTERNAL" }));
    for (const event of eventsOf(head)) accumulator.apply(event);
    expect(() => accumulator.acknowledge({ length: head.length + 1, hash: GENESIS_HASH })).toThrow(expect.objectContaining({ code: "INTERNAL" }));
  });
});

describe("RunStateAccumulator.fork", () => {
  it("previews events without changing the original", () => {
    const events = eventsOf([...head, started, rejected, completed]);
    const accumulator = new RunStateAccumulator();
    for (const event of events.slice(0, 5)) accumulator.apply(event);
    const before = accumulator.snapshot();
    const preview = accumulator.fork();
    for (const event of events.slice(5)) preview.apply(event);
    expect(preview.peek().phase).toBe("ready");
    expect(accumulator.snapshot()).toEqual(before);
    for (const event of events.slice(5)) accumulator.apply(event);
    expect(accumulator.snapshot()).toEqual(preview.snapshot());
  });

  it("forks an empty accumulator", () => {
    const preview = new RunStateAccumulator().fork();
    preview.apply(eventsOf(head)[0]!);
    expect(preview.peek().phase).toBe("ready");
  });
});

describe("limits and model failures", () => {
  const requested = head.slice(0, 3);
  const failed = (turnId: string) => ({
    type: "model.failed",
    data: { turnId, attempt: 1, code: "PROVIDER_TIMEOUT", message: "no answer in 10 ms", retryable: true, retrying: true },
  });

  it("pins maxToolCallsPerTurn from run.started; a journal from before the cap has none", () => {
    expect(reduceRun(eventsOf(head)).maxToolCallsPerTurn).toBeUndefined();
    const capped = { ...head[0]!, data: { ...head[0]!.data, limits: { maxTurns: 3, maxToolCallsPerTurn: 64 } } };
    expect(reduceRun(eventsOf([capped])).maxToolCallsPerTurn).toBe(64);
  });

  it("pins maxEventOutputBytes from run.started; a journal from before the limit has none", () => {
    expect(reduceRun(eventsOf(head)).maxEventOutputBytes).toBeUndefined();
    const limited = { ...head[0]!, data: { ...head[0]!.data, limits: { maxTurns: 3, maxEventOutputBytes: 262_144 } } };
    expect(reduceRun(eventsOf([limited])).maxEventOutputBytes).toBe(262_144);
  });

  it("folds model.failed as a no-op while the call is awaited, and refuses it anywhere else", () => {
    const before = reduceRun(eventsOf(requested));
    const after = reduceRun(eventsOf([...requested, failed("turn_1"), failed("turn_1")]));
    expect({ ...after, length: 0, headHash: "" }).toEqual({ ...before, length: 0, headHash: "" });
    expect(() => reduceRun(eventsOf([...requested, failed("turn_2")]))).toThrow(expect.objectContaining({ code: "EVENT_INVALID" }));
    expect(() => reduceRun(eventsOf([...head, failed("turn_1")]))).toThrow(expect.objectContaining({ code: "EVENT_INVALID" }));
  });

  it("folds run.failed as a no-op in any unfinished phase: the run stays where it stopped, for resume to continue", () => {
    const runFailed = (turnId?: string) => ({
      type: "run.failed",
      data: { ...(turnId === undefined ? {} : { turnId }), code: "PROVIDER_UNAVAILABLE", message: "503", retryable: true, requestId: "req_9", attempts: 3 },
    });
    const before = reduceRun(eventsOf(requested));
    const after = reduceRun(eventsOf([...requested, failed("turn_1"), runFailed("turn_1")]));
    expect({ ...after, length: 0, headHash: "" }).toEqual({ ...before, length: 0, headHash: "" });
    expect(after.phase).toBe("awaiting_response");
    // A resumed call answers after it: the fold goes on as if the failure had not been.
    expect(reduceRun(eventsOf([...requested, runFailed("turn_1"), head[3]!])).phase).toBe("tools_pending");
    expect(reduceRun(eventsOf([head[0]!, runFailed()])).phase).toBe("ready");
    expect(() => reduceRun(eventsOf([...requested, runFailed("turn_2")]))).toThrow(expect.objectContaining({ code: "EVENT_INVALID" }));
  });

  it("apply returns the event it folded, typed", () => {
    const accumulator = new RunStateAccumulator();
    const [started, turn] = eventsOf(head.slice(0, 2));
    expect(accumulator.apply(started!).type).toBe("run.started");
    const typed = accumulator.apply(turn!);
    expect(typed.type === "turn.started" && typed.data.index).toBe(1);
  });
});
