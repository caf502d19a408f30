// Survivors of `pnpm mutate protocol` in the fold's turn events (run-state.ts turn.started,
// model.requested, context.compiled, model.failed, model.responded) and its reconcile
// handling (action.reconciled): each event is accepted only in the phases and for the turn
// the run is in, and a reconciliation changes the action and the transcript only when the
// effect was applied.
import { describe, expect, it } from "vitest";
import { YokeError } from "./errors.js";
import { GENESIS_HASH } from "./events.js";
import type { ModelResponse, ToolResultEnvelope } from "./model.js";
import { reduceRun } from "./run-state.js";
import { eventsOf, toolUse } from "./__fixtures__/events-of.js";

type Draft = { type: string; data: Record<string, unknown> };

const started: Draft = {
  type: "run.started",
  data: { sessionId: "session_1", task: "t", tools: [], limits: { maxTurns: 3 }, release: { runtime: "test", eventSchemaVersion: 1 } },
};
const turn = (turnId = "turn_1", index = 1): Draft => ({ type: "turn.started", data: { turnId, index } });
const requested = (turnId = "turn_1"): Draft => ({ type: "model.requested", data: { turnId, requestHash: GENESIS_HASH, messageCount: 1 } });
const compiled = (turnId = "turn_1"): Draft => ({
  type: "context.compiled",
  data: { turnId, revision: 0, requestHash: GENESIS_HASH, manifestDelta: {} },
});
const failed = (turnId = "turn_1"): Draft => ({
  type: "model.failed",
  data: { turnId, attempt: 1, code: "PROVIDER_UNAVAILABLE", message: "503", retryable: true, retrying: true },
});
const text: ModelResponse = {
  provider: "scripted",
  model: "scripted-1",
  stopReason: "end_turn",
  usage: { inputTokens: 0, outputTokens: 0 },
  content: [{ type: "text", text: "done" }],
};
const responded = (response: ModelResponse = text, turnId = "turn_1"): Draft => ({ type: "model.responded", data: { turnId, response, latencyMs: 0 } });

/** The prefix that leaves the run in each phase of turn_1. */
const READY = [started, turn()];
const AWAITING = [...READY, requested()];
const RESPONDED = [...AWAITING, responded()];
const TOOLS_PENDING = [...AWAITING, responded(toolUse(["call_1", "pay"]))];

function refusal(events: Draft[]): YokeError {
  let caught: unknown;
  try {
    reduceRun(eventsOf(events));
  } catch (error) {
    caught = error;
  }
  expect(YokeError.hasCode(caught, "EVENT_INVALID"), `expected EVENT_INVALID, got ${String(caught)}`).toBe(true);
  return caught as YokeError;
}
const phaseOf = (events: Draft[]) => reduceRun(eventsOf(events)).phase;

describe("the fold accepts a turn event only in its phase and for the current turn", () => {
  it("the prefixes reach the phases they are named after", () => {
    expect([READY, AWAITING, RESPONDED, TOOLS_PENDING].map(phaseOf)).toEqual(["ready", "awaiting_response", "responded", "tools_pending"]);
  });

  it("turn.started: only when ready", () => {
    expect(reduceRun(eventsOf([...READY])).turns).toBe(1);
    expect(refusal([...AWAITING, turn("turn_2", 2)]).message).toBe("event 3 (turn.started) cannot be applied: turn.started in phase awaiting_response");
    expect(refusal([...TOOLS_PENDING, turn("turn_2", 2)]).message).toContain("turn.started in phase tools_pending");
  });

  it("model.requested: when ready or responded, for the current turn", () => {
    expect(phaseOf([...READY, requested()])).toBe("awaiting_response");
    expect(phaseOf([...RESPONDED, requested()])).toBe("awaiting_response");
    expect(refusal([...AWAITING, requested()]).message).toBe("event 3 (model.requested) cannot be applied: model.requested in phase awaiting_response");
    expect(refusal([...TOOLS_PENDING, requested()]).message).toContain("model.requested in phase tools_pending");
    expect(refusal([...READY, requested("turn_2")]).message).toBe("event 2 (model.requested) cannot be applied: model.requested for another turn");
  });

  it("context.compiled: when ready or responded, for the current turn; it changes no phase", () => {
    expect(phaseOf([...READY, compiled()])).toBe("ready");
    expect(phaseOf([...RESPONDED, compiled()])).toBe("responded");
    expect(refusal([...AWAITING, compiled()]).message).toBe("event 3 (context.compiled) cannot be applied: context.compiled in phase awaiting_response");
    expect(refusal([...TOOLS_PENDING, compiled()]).message).toContain("context.compiled in phase tools_pending");
    expect(refusal([...READY, compiled("turn_2")]).message).toBe("event 2 (context.compiled) cannot be applied: context.compiled for another turn");
  });

  it("model.failed: only while awaiting the response, for the current turn; the request stays pending", () => {
    expect(phaseOf([...AWAITING, failed()])).toBe("awaiting_response");
    expect(refusal([...READY, failed()]).message).toBe("event 2 (model.failed) cannot be applied: model.failed in phase ready");
    expect(refusal([...RESPONDED, failed()]).message).toContain("model.failed in phase responded");
    expect(refusal([...AWAITING, failed("turn_2")]).message).toBe("event 3 (model.failed) cannot be applied: model.failed for another turn");
  });

  it("model.responded: only while awaiting the response", () => {
    expect(refusal([...READY, responded()]).message).toBe("event 2 (model.responded) cannot be applied: model.responded in phase ready");
    expect(refusal([...RESPONDED, responded()]).message).toContain("model.responded in phase responded");
    expect(refusal([...TOOLS_PENDING, responded()]).message).toContain("model.responded in phase tools_pending");
  });
});

describe("action.reconciled changes the action and the transcript only when the effect was applied", () => {
  const result: ToolResultEnvelope = { status: "ok", content: [{ type: "text", text: "paid" }], timing: { startedAt: 0, endedAt: 0, durationMs: 0 } };
  const uncertain: Draft[] = [
    ...TOOLS_PENDING,
    { type: "action.proposed", data: { turnId: "turn_1", toolCallId: "call_1", toolName: "pay", actionId: "action_1", input: {}, sideEffect: "irreversible" } },
    { type: "action.validated", data: { actionId: "action_1" } },
    { type: "action.authorized", data: { actionId: "action_1", decision: "allow", rule: "default" } },
    { type: "action.leased", data: { actionId: "action_1", attemptId: "action_1_1", attempt: 1, deadlineAt: 0 } },
    { type: "action.executing", data: { actionId: "action_1", attemptId: "action_1_1" } },
    { type: "action.uncertain", data: { actionId: "action_1", attemptId: "action_1_1", reason: "ack lost" } },
  ];
  const reconciled = (data: Record<string, unknown>): Draft => ({ type: "action.reconciled", data: { actionId: "action_1", ...data } });

  it("applied: the action is committed at the reconciliation's seq with its receipt, and its result closes the call", () => {
    const state = reduceRun(eventsOf([...uncertain, reconciled({ verdict: "applied", result, receipt: { charge: "ch_1" } })]));
    expect(state.actions[0]).toMatchObject({ status: { state: "committed" }, committedSeq: uncertain.length, receipt: { charge: "ch_1" } });
    expect(state.phase).toBe("ready");
    expect(state.pendingToolCalls).toEqual([]);
    const last = state.messages.at(-1)!;
    expect(last.role === "tool" && last.content.map((part) => part.result)).toEqual([result]);
  });

  it("applied without a result is refused: the model would be shown nothing", () => {
    expect(refusal([...uncertain, reconciled({ verdict: "applied" })]).message).toContain("an applied reconciliation must carry the result");
  });

  it.for(["not_applied", "retry_safe", "unknown"])("%s: no commit, no receipt, the call stays pending", (verdict) => {
    const state = reduceRun(eventsOf([...uncertain, reconciled({ verdict, receipt: { charge: "ch_1" } })]));
    expect(state.actions[0]!.status.state).toBe(verdict === "unknown" ? "uncertain" : "authorized");
    expect(state.actions[0]!.committedSeq).toBeUndefined();
    expect(state.actions[0]!.receipt).toBeUndefined();
    expect(state.phase).toBe("tools_pending");
    expect(state.pendingToolCalls.map((call) => call.toolCallId)).toEqual(["call_1"]);
    expect(state.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
  });
});
