// Kills mutants of run-state.ts that survived `pnpm mutate protocol` (reports/mutation/protocol.md):
// the fold's refusals said whole (the message is what an operator reads in the log), a fork's
// own copy of the actions, run.waiting's optional members, run.failed without a turn, the
// compensation note and the default principal.
import { describe, expect, it } from "vitest";
import { YokeError } from "./errors.js";
import { GENESIS_HASH } from "./events.js";
import type { ModelResponse, ToolResultEnvelope } from "./model.js";
import { RunStateAccumulator, reduceRun } from "./run-state.js";
import { eventsOf, toolUse } from "./__fixtures__/events-of.js";

type Draft = { type: string; data: Record<string, unknown> };

const envelope = (text: string): ToolResultEnvelope => ({
  status: "ok",
  content: [{ type: "text", text }],
  timing: { startedAt: 0, endedAt: 0, durationMs: 0 },
});
const started: Draft = {
  type: "run.started",
  data: { sessionId: "session_1", task: "t", tools: [], limits: { maxTurns: 3 }, release: { runtime: "test", eventSchemaVersion: 1 } },
};
const turn: Draft[] = [
  { type: "turn.started", data: { turnId: "turn_1", index: 1 } },
  { type: "model.requested", data: { turnId: "turn_1", requestHash: GENESIS_HASH, messageCount: 1 } },
];
const responded = (response: ModelResponse): Draft => ({ type: "model.responded", data: { turnId: "turn_1", response, latencyMs: 0 } });
const answer: ModelResponse = {
  provider: "scripted",
  model: "scripted-1",
  stopReason: "end_turn",
  usage: { inputTokens: 0, outputTokens: 0 },
  content: [{ type: "text", text: "done" }],
};
const proposed = (actionId: string): Draft => ({
  type: "action.proposed",
  data: { turnId: "turn_1", toolCallId: "call_1", toolName: "t", actionId, input: {}, sideEffect: "reversible" },
});
const toExecuting = (actionId: string): Draft[] => [
  { type: "action.validated", data: { actionId } },
  { type: "action.authorized", data: { actionId, decision: "allow", rule: "default" } },
  { type: "action.leased", data: { actionId, attemptId: `${actionId}_1`, attempt: 1, deadlineAt: 0 } },
  { type: "action.executing", data: { actionId, attemptId: `${actionId}_1` } },
];

/** The fold's refusal of `drafts` (EVENT_INVALID unless said), as its message. */
function refusalOf(drafts: Draft[], code = "EVENT_INVALID"): string {
  try {
    reduceRun(eventsOf(drafts));
  } catch (error) {
    if (YokeError.isInstance(error)) {
      expect(error.code).toBe(code);
      return error.message;
    }
    throw error;
  }
  throw new Error("the fold did not refuse");
}

describe("the fold's refusals, said whole", () => {
  it("a journal that does not begin with run.started", () => {
    expect(refusalOf(turn)).toBe("event 0 (turn.started) cannot be applied: the first event must be run.started");
  });

  it("snapshot and peek before any event: RUN_NOT_FOUND", () => {
    const accumulator = new RunStateAccumulator();
    for (const read of [() => accumulator.snapshot(), () => accumulator.peek()]) {
      expect(read).toThrow(YokeError);
      try {
        read();
      } catch (error) {
        expect([YokeError.isInstance(error) && error.code, (error as Error).message]).toEqual(["RUN_NOT_FOUND", "no events folded yet"]);
      }
    }
  });

  it("an approval decision outside a pending batch", () => {
    const denied = { type: "approval.denied", data: { actionId: "action_1", approvalId: "approval_1", approver: "ops", reason: "no" } };
    expect(refusalOf([started, denied])).toBe("event 1 (approval.denied) cannot be applied: approval.denied in phase ready");
  });

  it("action.authorized naming an approval that is not granted", () => {
    const authorized = { type: "action.authorized", data: { actionId: "action_1", decision: "allow", rule: "approved", approvalId: "approval_1" } };
    const events = [
      started,
      ...turn,
      responded(toolUse(["call_1", "t"])),
      proposed("action_1"),
      { type: "action.validated", data: { actionId: "action_1" } },
      authorized,
    ];
    expect(refusalOf(events)).toBe("event 6 (action.authorized) cannot be applied: action.authorized names approval approval_1, which is not granted");
  });

  it("completion.checked, input.added and verifier.started in a phase that does not take them", () => {
    expect(refusalOf([started, { type: "completion.checked", data: { turnId: "turn_1", passed: true } }])).toBe(
      "event 1 (completion.checked) cannot be applied: completion.checked in phase ready",
    );
    const input = { type: "input.added", data: { source: "operator", content: [{ type: "text", text: "more" }] } };
    expect(refusalOf([started, ...turn, input])).toBe("event 3 (input.added) cannot be applied: input.added in phase awaiting_response");
    const verifier = { type: "verifier.started", data: { turnId: "turn_1", verifierRunId: "v_1", verifierId: "check", attempt: 1, replaySafe: true } };
    expect(refusalOf([started, ...turn, verifier])).toBe("event 3 (verifier.started) cannot be applied: verifier.started in phase awaiting_response");
    expect(reduceRun(eventsOf([started, ...turn, responded(answer), verifier])).phase).toBe("responded");
  });

  it("run.failed names the current turn or none", () => {
    const failed = (turnId?: string): Draft => ({
      type: "run.failed",
      data: { code: "PROVIDER", message: "down", retryable: true, ...(turnId === undefined ? {} : { turnId }) },
    });
    expect(reduceRun(eventsOf([started, ...turn, failed()])).phase).toBe("awaiting_response");
    expect(reduceRun(eventsOf([started, ...turn, failed("turn_1")])).phase).toBe("awaiting_response");
    expect(refusalOf([started, ...turn, failed("turn_0")])).toBe("event 3 (run.failed) cannot be applied: run.failed for another turn");
  });
});

describe("what the fold records", () => {
  it("a fork has its own actions: an action moved in the fork stays where it was in the accumulator", () => {
    const accumulator = new RunStateAccumulator();
    const events = eventsOf([started, ...turn, responded(toolUse(["call_1", "t"])), proposed("action_1"), ...toExecuting("action_1")]);
    for (const event of events.slice(0, 5)) accumulator.apply(event);
    const fork = accumulator.fork();
    fork.apply(events[5]!);
    expect(fork.peek().actions.map((action) => action.status.state)).toEqual(["validated"]);
    expect(accumulator.peek().actions.map((action) => action.status.state)).toEqual(["proposed"]);
  });

  it("run.waiting keeps turnId and actionId when given, and has no such members when not", () => {
    const waiting = (extra: Record<string, unknown>): Draft => ({ type: "run.waiting", data: { kind: "escalation", reason: "stuck", ...extra } });
    expect(reduceRun(eventsOf([started, waiting({})])).waiting).toStrictEqual({ kind: "escalation", reason: "stuck" });
    expect(reduceRun(eventsOf([started, waiting({ turnId: "turn_1", actionId: "action_1" })])).waiting).toStrictEqual({
      kind: "escalation",
      reason: "stuck",
      turnId: "turn_1",
      actionId: "action_1",
    });
  });

  it("a compensation tells the model, in a user message, which call's effect was undone", () => {
    const state = reduceRun(
      eventsOf([
        started,
        ...turn,
        responded(toolUse(["call_1", "book"])),
        { ...proposed("action_1"), data: { ...proposed("action_1").data, toolName: "book" } },
        ...toExecuting("action_1"),
        { type: "action.committed", data: { actionId: "action_1", attemptId: "action_1_1", result: envelope("booked") } },
        { type: "action.compensating", data: { actionId: "action_1", reason: "undo" } },
        { type: "action.compensated", data: { actionId: "action_1" } },
      ]),
    );
    expect(state.messages.at(-1)).toEqual({
      role: "user",
      content: [{ type: "text", text: "[runtime] the effect of book (call call_1) was undone by its compensation." }],
    });
    expect(state.messageSeqs.at(-1)).toBe(11);
  });

  it("a run started without a principal runs as its tenant, unauthenticated, with no scopes", () => {
    expect(reduceRun(eventsOf([started])).principal).toStrictEqual({ id: "tenant_a", authenticated: false, scopes: [] });
  });
});
