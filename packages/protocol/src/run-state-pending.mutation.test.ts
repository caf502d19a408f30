// Kills mutants of run-state.ts that survived `pnpm mutate protocol` (reports/mutation/protocol.md):
// #pendingIndex (which pending call an event is about when tool-call ids repeat, with and without
// a start, and its refusals), #moveAction (the phase it allows, its refusal, the record it
// creates) and #actionCallIndex (an action whose call is no longer pending).
import { describe, expect, it } from "vitest";
import { YokeError } from "./errors.js";
import { GENESIS_HASH } from "./events.js";
import type { Message, ModelResponse, ToolResultEnvelope } from "./model.js";
import type { RunState } from "./run-state-types.js";
import { reduceRun } from "./run-state.js";
import { eventsOf, toolUse } from "./__fixtures__/events-of.js";

type Draft = { type: string; data: Record<string, unknown> };

const envelope = (text: string): ToolResultEnvelope => ({
  status: "ok",
  content: [{ type: "text", text }],
  timing: { startedAt: 0, endedAt: 0, durationMs: 0 },
});
const head = (response: ModelResponse): Draft[] => [
  { type: "run.started", data: { sessionId: "session_1", task: "t", tools: [], limits: { maxTurns: 3 }, release: { runtime: "test", eventSchemaVersion: 1 } } },
  { type: "turn.started", data: { turnId: "turn_1", index: 1 } },
  { type: "model.requested", data: { turnId: "turn_1", requestHash: GENESIS_HASH, messageCount: 1 } },
  { type: "model.responded", data: { turnId: "turn_1", response, latencyMs: 0 } },
];
const ref = (toolCallId: string) => ({ turnId: "turn_1", toolCallId, toolName: "t" });
// Legacy events (journals written before action transactions), still folded.
const started = (toolCallId: string, actionId: string): Draft => ({
  type: "tool.started",
  data: { ...ref(toolCallId), actionId, attemptId: `${actionId}_1`, attempt: 1, input: {} },
});
const completed = (toolCallId: string, actionId: string, text: string): Draft => ({
  type: "tool.completed",
  data: { ...ref(toolCallId), actionId, attemptId: `${actionId}_1`, result: envelope(text) },
});
const rejected = (toolCallId: string, text: string): Draft => ({
  type: "tool.rejected",
  data: { ...ref(toolCallId), code: "TOOL_UNKNOWN", result: envelope(text) },
});
const proposed = (toolCallId: string, actionId: string, extra: Record<string, unknown> = {}): Draft => ({
  type: "action.proposed",
  data: { ...ref(toolCallId), actionId, input: {}, sideEffect: "reversible", ...extra },
});
/** validated → authorized → leased (attempt 1) → executing, after `action.proposed`. */
const toExecuting = (actionId: string): Draft[] => [
  { type: "action.validated", data: { actionId } },
  { type: "action.authorized", data: { actionId, decision: "allow", rule: "default" } },
  { type: "action.leased", data: { actionId, attemptId: `${actionId}_1`, attempt: 1, deadlineAt: 0 } },
  { type: "action.executing", data: { actionId, attemptId: `${actionId}_1` } },
];
const committed = (actionId: string, text: string): Draft => ({
  type: "action.committed",
  data: { actionId, attemptId: `${actionId}_1`, result: envelope(text) },
});

/** What each pending call is: its place in the response, its action, the action it started under. */
const pendingOf = (state: RunState) => state.pendingToolCalls.map((call) => [call.index, call.toolCallId, call.actionId, call.started?.actionId]);

/** The texts of the last message's tool results, in order. */
function resultsOf(state: RunState): string[] {
  const last: Message = state.messages.at(-1)!;
  if (last.role !== "tool") throw new Error(`the last message is ${last.role}`);
  return last.content.map((part) => `${part.toolCallId}:${(part.result.content[0] as { text: string }).text}`);
}

/** The fold's refusal of `drafts`, as code and message. */
function refusalOf(drafts: Draft[]): { code: string; message: string; details: unknown } {
  try {
    reduceRun(eventsOf(drafts));
  } catch (error) {
    if (YokeError.isInstance(error)) return { code: error.code, message: error.message, details: error.details };
    throw error;
  }
  throw new Error("the fold did not refuse");
}

describe("#pendingIndex: which pending call an event is about", () => {
  const twice = head(toolUse(["call_1", "t"], ["call_1", "t"]));

  it("two legacy calls share an id: each result goes to the call started under its action id", () => {
    const both = [...twice, started("call_1", "action_a"), started("call_1", "action_b")];
    expect(pendingOf(reduceRun(eventsOf(both)))).toEqual([
      [0, "call_1", undefined, "action_a"],
      [1, "call_1", undefined, "action_b"],
    ]);
    // b's result first: it closes the second call, not the first call with the id.
    const oneDone = reduceRun(eventsOf([...both, completed("call_1", "action_b", "b")]));
    expect(pendingOf(oneDone)).toEqual([[0, "call_1", undefined, "action_a"]]);
    const done = reduceRun(eventsOf([...both, completed("call_1", "action_b", "b"), completed("call_1", "action_a", "a")]));
    expect(done.phase).toBe("ready");
    expect(resultsOf(done)).toEqual(["call_1:a", "call_1:b"]);
  });

  it("a call started under an action id takes that action's result even when a later call with the same id has not started", () => {
    const state = reduceRun(eventsOf([...twice, started("call_1", "action_a"), completed("call_1", "action_a", "a")]));
    expect(pendingOf(state)).toEqual([[1, "call_1", undefined, undefined]]);
  });

  it("the lookup by action id is by the pair: an action id started under another call does not take this call's result", () => {
    const state = reduceRun(
      eventsOf([...head(toolUse(["call_1", "t"], ["call_2", "t"])), started("call_1", "action_a"), completed("call_2", "action_a", "two")]),
    );
    expect(pendingOf(state)).toEqual([[0, "call_1", undefined, "action_a"]]);
  });

  it("two actions proposed for calls that share an id: the second goes to the call without an action", () => {
    const both = [...twice, proposed("call_1", "action_a"), proposed("call_1", "action_b")];
    expect(pendingOf(reduceRun(eventsOf(both)))).toEqual([
      [0, "call_1", "action_a", undefined],
      [1, "call_1", "action_b", undefined],
    ]);
    // Neither has started: each action's outcome closes its own call, in proposal order in the message.
    const done = reduceRun(eventsOf([...both, ...toExecuting("action_a"), ...toExecuting("action_b"), committed("action_b", "b"), committed("action_a", "a")]));
    expect(resultsOf(done)).toEqual(["call_1:a", "call_1:b"]);
  });

  it("a result whose action id matches no start closes the first call with its id, wherever it is", () => {
    // call_1 started under action_a; the result names action_b: no start matches, no call_1 is unstarted.
    const state = reduceRun(
      eventsOf([...head(toolUse(["call_0", "t"], ["call_1", "t"])), started("call_1", "action_a"), completed("call_1", "action_b", "one")]),
    );
    expect(pendingOf(state)).toEqual([[0, "call_0", undefined, undefined]]);
    const done = reduceRun(
      eventsOf([
        ...head(toolUse(["call_0", "t"], ["call_1", "t"])),
        started("call_1", "action_a"),
        completed("call_1", "action_b", "one"),
        rejected("call_0", "zero"),
      ]),
    );
    expect(resultsOf(done)).toEqual(["call_0:zero", "call_1:one"]);
  });

  it("refuses a result for a call the response did not make, and a result when no calls are pending", () => {
    const response = head(toolUse(["call_1", "t"], ["call_2", "t"]));
    expect(refusalOf([...response, rejected("call_9", "x")])).toEqual({
      code: "EVENT_INVALID",
      message: "event 4 (tool.rejected) cannot be applied: no pending tool call call_9",
      details: { seq: 4, type: "tool.rejected" },
    });
    expect(refusalOf([...response, rejected("call_1", "a"), rejected("call_2", "b"), rejected("call_1", "again")]).message).toBe(
      "event 6 (tool.rejected) cannot be applied: tool.rejected in phase ready",
    );
  });
});

describe("#moveAction and #actionCallIndex", () => {
  const one = head(toolUse(["call_1", "t"]));
  const failedOnce = { actionId: "action_a", attemptId: "action_a_1", dispatched: true, retryable: true, retrying: false, result: envelope("no") };

  it("an action moves only while its batch is pending: a retry lease after the results are in is refused", () => {
    const closed = [...one, proposed("call_1", "action_a"), ...toExecuting("action_a"), { type: "action.failed", data: failedOnce }];
    const state = reduceRun(eventsOf(closed));
    expect([state.phase, state.actions[0]!.status]).toEqual(["ready", { state: "failed", attempt: 1, retryable: true }]);
    const lease = { type: "action.leased", data: { actionId: "action_a", attemptId: "action_a_2", attempt: 2, deadlineAt: 0 } };
    expect(refusalOf([...closed, lease])).toEqual({
      code: "EVENT_INVALID",
      message: "event 10 (action.leased) cannot be applied: action.leased in phase ready",
      details: { seq: 10, type: "action.leased" },
    });
  });

  it("a compensation folds between turns (phase ready), not once the next turn asked the model", () => {
    const done = [...one, proposed("call_1", "action_a"), ...toExecuting("action_a"), committed("action_a", "a")];
    const compensating = { type: "action.compensating", data: { actionId: "action_a", reason: "undo" } };
    expect(reduceRun(eventsOf([...done, compensating])).actions[0]!.status.state).toBe("compensating");
    const nextTurn = [
      { type: "turn.started", data: { turnId: "turn_2", index: 2 } },
      { type: "model.requested", data: { turnId: "turn_2", requestHash: GENESIS_HASH, messageCount: 3 } },
    ];
    expect(refusalOf([...done, ...nextTurn, compensating]).message).toBe(
      "event 12 (action.compensating) cannot be applied: action.compensating in phase awaiting_response",
    );
  });

  it("an illegal transition is refused with a message naming the event, the action and the reason", () => {
    const events = [...one, proposed("call_1", "action_a"), { type: "action.validated", data: { actionId: "action_a" } }, committed("action_a", "a")];
    expect(refusalOf(events)).toEqual({
      code: "ACTION_TRANSITION_ILLEGAL",
      message: "event 6 (action.committed) for action action_a: action.committed is not legal in state validated",
      details: { seq: 6, type: "action.committed", actionId: "action_a" },
    });
  });

  it("an action proposed without a tool revision has no toolRevision member (not one set to undefined)", () => {
    const [record] = reduceRun(eventsOf([...one, proposed("call_1", "action_a")])).actions;
    expect(Object.hasOwn(record!, "toolRevision")).toBe(false);
    expect(record).toStrictEqual({
      actionId: "action_a",
      turnId: "turn_1",
      toolCallId: "call_1",
      toolName: "t",
      input: {},
      sideEffect: "reversible",
      status: { state: "proposed", attempt: 0, retryable: false },
      attemptId: undefined,
      receipt: undefined,
      committedSeq: undefined,
    });
  });

  it("an outcome for an action whose call was already answered is refused, and answers no other call", () => {
    // call_1's action is executing when a rejection names call_1 (the first call with the id: it has an action).
    const answered = [
      ...head(toolUse(["call_1", "t"], ["call_2", "t"])),
      proposed("call_1", "action_a"),
      ...toExecuting("action_a"),
      rejected("call_1", "rejected"),
    ];
    expect(pendingOf(reduceRun(eventsOf(answered)))).toEqual([[1, "call_2", undefined, undefined]]);
    expect(refusalOf([...answered, committed("action_a", "a")])).toEqual({
      code: "EVENT_INVALID",
      message: "event 10 (action.committed) cannot be applied: no pending tool call for action action_a",
      details: { seq: 10, type: "action.committed" },
    });
  });
});
