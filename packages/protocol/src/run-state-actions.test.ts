import { describe, expect, it } from "vitest";
import { YokeError } from "./errors.js";
import { GENESIS_HASH } from "./events.js";
import type { ToolResultEnvelope } from "./model.js";
import { reduceRun } from "./run-state.js";
import { eventsOf, toolUse } from "./__fixtures__/events-of.js";

const result = (text: string): ToolResultEnvelope => ({ status: "ok", content: [{ type: "text", text }], timing: { startedAt: 0, endedAt: 0, durationMs: 0 } });
const response = toolUse(["call_1", "pay"], ["call_2", "book"]);
const head = [
  { type: "run.started", data: { sessionId: "session_1", task: "t", tools: [], limits: { maxTurns: 3 }, release: { runtime: "test", eventSchemaVersion: 1 } } },
  { type: "turn.started", data: { turnId: "turn_1", index: 1 } },
  { type: "model.requested", data: { turnId: "turn_1", requestHash: GENESIS_HASH, messageCount: 1 } },
  { type: "model.responded", data: { turnId: "turn_1", response, latencyMs: 0 } },
];
const admit = (actionId: string, toolCallId: string, toolName: string, sideEffect: string) => [
  { type: "action.proposed", data: { turnId: "turn_1", toolCallId, toolName, actionId, input: {}, sideEffect } },
  { type: "action.validated", data: { actionId } },
  { type: "action.authorized", data: { actionId, decision: "allow", rule: "default" } },
  { type: "action.leased", data: { actionId, attemptId: `${actionId}_1`, attempt: 1, deadlineAt: 0 } },
  { type: "action.executing", data: { actionId, attemptId: `${actionId}_1` } },
];

describe("RunStateAccumulator over action events", () => {
  it("tracks each action's state; outcomes become the tool message in proposal order", () => {
    const events = [
      ...head,
      ...admit("action_1", "call_1", "pay", "irreversible"),
      ...admit("action_2", "call_2", "book", "reversible"),
      { type: "action.committed", data: { actionId: "action_2", attemptId: "action_2_1", result: result("booked"), receipt: { id: 9 } } },
    ];
    const pending = reduceRun(eventsOf(events));
    expect(pending.phase).toBe("tools_pending");
    expect(pending.actions.map((action) => [action.actionId, action.status.state])).toEqual([
      ["action_1", "executing"],
      ["action_2", "committed"],
    ]);
    expect(pending.actions[1]!.receipt).toEqual({ id: 9 });
    const done = reduceRun(
      eventsOf([
        ...events,
        { type: "action.uncertain", data: { actionId: "action_1", attemptId: "action_1_1", reason: "ack lost" } },
        { type: "action.reconciled", data: { actionId: "action_1", verdict: "applied", result: result("paid") } },
      ]),
    );
    expect(done.phase).toBe("ready");
    const last = done.messages.at(-1)!;
    expect(last.role === "tool" && last.content.map((part) => part.result.content[0]!.text)).toEqual(["paid", "booked"]);
  });

  it("refuses a journal holding an illegal transition with ACTION_TRANSITION_ILLEGAL", () => {
    const events = [
      ...head,
      ...admit("action_1", "call_1", "pay", "irreversible").slice(0, 3),
      { type: "action.committed", data: { actionId: "action_1", attemptId: "x", result: result("paid") } },
    ];
    try {
      reduceRun(eventsOf(events));
      expect.unreachable();
    } catch (error) {
      expect(YokeError.hasCode(error, "ACTION_TRANSITION_ILLEGAL")).toBe(true);
    }
  });

  it("a failed attempt that is retried does not reach the transcript; a compensation adds a note", () => {
    const failed = { status: "error" as const, content: [{ type: "text" as const, text: "no" }], timing: { startedAt: 0, endedAt: 0, durationMs: 0 } };
    const state = reduceRun(
      eventsOf([
        ...head,
        ...admit("action_1", "call_1", "pay", "irreversible"),
        ...admit("action_2", "call_2", "book", "reversible"),
        { type: "action.committed", data: { actionId: "action_2", attemptId: "action_2_1", result: result("booked") } },
        { type: "action.failed", data: { actionId: "action_1", attemptId: "action_1_1", dispatched: true, retryable: true, retrying: true, result: failed } },
        { type: "action.leased", data: { actionId: "action_1", attemptId: "action_1_2", attempt: 2, deadlineAt: 0 } },
        { type: "action.executing", data: { actionId: "action_1", attemptId: "action_1_2" } },
        { type: "action.failed", data: { actionId: "action_1", attemptId: "action_1_2", dispatched: true, retryable: false, retrying: false, result: failed } },
        { type: "action.compensating", data: { actionId: "action_2", reason: "action_1 failed" } },
        { type: "action.compensated", data: { actionId: "action_2" } },
      ]),
    );
    expect(state.phase).toBe("ready");
    expect(state.actions.map((action) => [action.status.state, action.status.attempt])).toEqual([
      ["failed", 2],
      ["compensated", 1],
    ]);
    expect(state.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "user"]);
  });

  it("one action.admitted folds exactly like its five admission events (older journals still fold)", () => {
    const admitted = (actionId: string, toolCallId: string, toolName: string, sideEffect: string) => ({
      type: "action.admitted",
      data: {
        turnId: "turn_1",
        toolCallId,
        toolName,
        actionId,
        input: {},
        sideEffect,
        decision: "allow",
        rule: "default",
        attemptId: `${actionId}_1`,
        attempt: 1,
        deadlineAt: 0,
      },
    });
    const outcomes = [
      { type: "action.committed", data: { actionId: "action_2", attemptId: "action_2_1", result: result("booked"), receipt: { id: 9 } } },
      { type: "action.uncertain", data: { actionId: "action_1", attemptId: "action_1_1", reason: "ack lost" } },
    ];
    const separate = [...head, ...admit("action_1", "call_1", "pay", "irreversible"), ...admit("action_2", "call_2", "book", "reversible")];
    const combined = [...head, admitted("action_1", "call_1", "pay", "irreversible"), admitted("action_2", "call_2", "book", "reversible")];
    // Sequence numbers and the head differ (four fewer events); everything else must not.
    const withoutSeqs = (state: ReturnType<typeof reduceRun>) => ({
      ...state,
      length: undefined,
      headHash: undefined,
      messageSeqs: undefined,
      actions: state.actions.map((action) => ({ ...action, committedSeq: undefined })),
    });
    for (const tail of [[], outcomes.slice(0, 1), outcomes]) {
      const before = reduceRun(eventsOf([...separate, ...tail]));
      const after = reduceRun(eventsOf([...combined, ...tail]));
      expect(withoutSeqs(after)).toEqual(withoutSeqs(before));
    }
    const pending = reduceRun(eventsOf(combined));
    expect(pending.actions.map((action) => [action.actionId, action.status, action.attemptId])).toEqual([
      ["action_1", { state: "executing", attempt: 1, retryable: false }, "action_1_1"],
      ["action_2", { state: "executing", attempt: 1, retryable: false }, "action_2_1"],
    ]);
  });

  it("refuses action.admitted for an action that exists (ACTION_TRANSITION_ILLEGAL) or for another attempt (EVENT_INVALID)", () => {
    const again = {
      type: "action.admitted",
      data: {
        turnId: "turn_1",
        toolCallId: "call_2",
        toolName: "book",
        actionId: "action_1",
        input: {},
        sideEffect: "none",
        decision: "allow",
        rule: "default",
        attemptId: "a",
        attempt: 1,
        deadlineAt: 0,
      },
    };
    const codeOf = (events: { type: string; data: Record<string, unknown> }[]) => {
      try {
        reduceRun(eventsOf(events));
        return "folded";
      } catch (error) {
        return YokeError.isInstance(error) ? error.code : "other";
      }
    };
    expect(codeOf([...head, ...admit("action_1", "call_1", "pay", "irreversible"), again])).toBe("ACTION_TRANSITION_ILLEGAL");
    expect(codeOf([...head, { ...again, data: { ...again.data, attempt: 2 } }])).toBe("EVENT_INVALID");
    expect(codeOf([...head, again])).toBe("folded");
  });
});
