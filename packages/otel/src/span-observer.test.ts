import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import * as semconv from "@opentelemetry/semantic-conventions/incubating";
import { YokeError, type YokeEventDraft } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { journalOf, proposed, result, started, toolCallResponse, turn } from "./__fixtures__/events.js";
import { GEN_AI, GEN_AI_OPERATION } from "./attributes.js";
import { createSpanObserver, spansFromEvents } from "./span-observer.js";

function exportOf(drafts: readonly YokeEventDraft[], runId = "run_1") {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const summary = spansFromEvents(journalOf(runId, drafts), provider.getTracer("test"));
  return { spans: exporter.getFinishedSpans(), summary };
}

const ms = (time: readonly [number, number]) => time[0] * 1000 + time[1] / 1e6;
const byName = (spans: readonly ReadableSpan[], name: string) => spans.filter((span) => span.name === name);

describe("attribute names", () => {
  it("are the GenAI semantic conventions' own (semantic-conventions/incubating)", () => {
    expect(GEN_AI).toEqual({
      operationName: semconv.ATTR_GEN_AI_OPERATION_NAME,
      providerName: semconv.ATTR_GEN_AI_PROVIDER_NAME,
      agentName: semconv.ATTR_GEN_AI_AGENT_NAME,
      conversationId: semconv.ATTR_GEN_AI_CONVERSATION_ID,
      requestModel: semconv.ATTR_GEN_AI_REQUEST_MODEL,
      requestMaxTokens: semconv.ATTR_GEN_AI_REQUEST_MAX_TOKENS,
      responseModel: semconv.ATTR_GEN_AI_RESPONSE_MODEL,
      responseId: semconv.ATTR_GEN_AI_RESPONSE_ID,
      responseFinishReasons: semconv.ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
      usageInputTokens: semconv.ATTR_GEN_AI_USAGE_INPUT_TOKENS,
      usageOutputTokens: semconv.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
      usageCacheReadInputTokens: semconv.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
      usageCacheCreationInputTokens: semconv.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
      usageReasoningOutputTokens: semconv.ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
      toolName: semconv.ATTR_GEN_AI_TOOL_NAME,
      toolCallId: semconv.ATTR_GEN_AI_TOOL_CALL_ID,
      toolType: semconv.ATTR_GEN_AI_TOOL_TYPE,
      errorType: semconv.ATTR_ERROR_TYPE,
    });
    expect(GEN_AI_OPERATION).toEqual({
      invokeAgent: semconv.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      chat: semconv.GEN_AI_OPERATION_NAME_VALUE_CHAT,
      executeTool: semconv.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
    });
    expect(semconv.GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC).toBe("anthropic");
  });
});

describe("spansFromEvents", () => {
  it("keeps an uncertain attempt open until reconciliation, and records the verdict and the receipt", () => {
    const { spans } = exportOf([
      started(1000),
      turn(1001, "turn_1", 1),
      ...toolCallResponse(1002, "turn_1", "call_a", "charge_card"),
      ...proposed(1020, "turn_1", "action_a", "charge_card", "irreversible"),
      { type: "action.leased", at: 1020, data: { actionId: "action_a", attemptId: "attempt_a1", attempt: 1, deadlineAt: 9000 } },
      { type: "action.executing", at: 1021, data: { actionId: "action_a", attemptId: "attempt_a1" } },
      { type: "action.uncertain", at: 1500, data: { actionId: "action_a", attemptId: "attempt_a1", reason: "timed out after dispatch" } },
      {
        type: "action.reconciled",
        at: 1600,
        data: { actionId: "action_a", verdict: "applied", receipt: { chargeId: "ch_1" }, result: result("ok", "charged") },
      },
      { type: "run.completed", at: 1700, data: { outcome: { status: "completed" }, turns: 1 } },
    ]);
    const [attempt] = byName(spans, "execute_tool charge_card");
    expect(attempt).toBeDefined();
    expect([ms(attempt!.startTime), ms(attempt!.endTime)]).toEqual([1020, 1600]);
    expect(attempt!.attributes).toMatchObject({
      "yoke.action.state": "committed",
      "yoke.action.reconciliation": "applied",
      "yoke.action.receipt": true,
      "yoke.action.side_effect": "irreversible",
      "yoke.policy.rule": "default-allow",
      [GEN_AI.toolCallId]: "call_action_a",
    });
    expect(attempt!.events.map((event) => event.name)).toEqual(["action.leased", "action.executing", "action.uncertain", "action.reconciled"]);
    expect(attempt!.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("gives a retried attempt a span of its own: the failed one ERROR, the retry its attempt number", () => {
    const { spans } = exportOf([
      started(0),
      turn(1, "turn_1", 1),
      ...toolCallResponse(2, "turn_1", "call_b", "fetch"),
      ...proposed(20, "turn_1", "action_b", "fetch", "none"),
      { type: "action.leased", at: 20, data: { actionId: "action_b", attemptId: "attempt_b1", attempt: 1, deadlineAt: 900 } },
      { type: "action.executing", at: 21, data: { actionId: "action_b", attemptId: "attempt_b1" } },
      {
        type: "action.failed",
        at: 30,
        data: {
          actionId: "action_b",
          attemptId: "attempt_b1",
          dispatched: false,
          retryable: true,
          retrying: true,
          result: result("error", "deadline passed", "TOOL_TIMEOUT"),
        },
      },
      { type: "action.leased", at: 30, data: { actionId: "action_b", attemptId: "attempt_b2", attempt: 2, deadlineAt: 900 } },
      { type: "action.executing", at: 31, data: { actionId: "action_b", attemptId: "attempt_b2" } },
      { type: "action.committed", at: 40, data: { actionId: "action_b", attemptId: "attempt_b2", result: result("ok", "fetched") } },
    ]);
    const attempts = byName(spans, "execute_tool fetch");
    expect(attempts.map((span) => [span.attributes["yoke.action.attempt"], span.attributes["yoke.action.state"], span.status.code])).toEqual([
      [1, "failed", SpanStatusCode.ERROR],
      [2, "committed", SpanStatusCode.UNSET],
    ]);
    expect(attempts[0]!.status.message).toBe("TOOL_TIMEOUT: deadline passed");
    expect(attempts[0]!.attributes).toMatchObject({ [GEN_AI.errorType]: "TOOL_TIMEOUT", "yoke.retrying": true, "yoke.action.dispatched": false });
  });

  it("ends the spans of a run that waits at its last event, marked incomplete, and an action denied before dispatch is an ERROR span", () => {
    const { spans } = exportOf([
      started(0),
      turn(1, "turn_1", 1),
      ...toolCallResponse(2, "turn_1", "call_c", "send_email"),
      ...proposed(20, "turn_1", "action_c", "send_email", "irreversible").slice(0, 2),
      {
        type: "action.failed",
        at: 25,
        data: { actionId: "action_c", dispatched: false, retryable: false, retrying: false, result: result("error", "denied by ops", "APPROVAL_DENIED") },
      },
      { type: "run.waiting", at: 30, data: { turnId: "turn_1", kind: "escalation", reason: "a person must decide" } },
    ]);
    const run = byName(spans, "invoke_agent yoke")[0]!;
    expect(ms(run.endTime)).toBe(30);
    expect(run.attributes["yoke.incomplete"]).toBe(true);
    const turnSpan = byName(spans, "turn 1")[0]!;
    expect(turnSpan.attributes["yoke.incomplete"]).toBe(true);
    expect(turnSpan.events.map((event) => [event.name, event.attributes?.kind])).toEqual([["run.waiting", "escalation"]]);
    const denied = byName(spans, "execute_tool send_email")[0]!;
    expect([ms(denied.startTime), ms(denied.endTime)]).toEqual([20, 25]);
    expect(denied.status).toEqual({ code: SpanStatusCode.ERROR, message: "APPROVAL_DENIED: denied by ops" });
  });

  it("notes a person's decision on a parked action on its turn, and the denied action is an ERROR span", () => {
    const binding = {
      actionDigest: "d".repeat(64),
      toolRevision: "e".repeat(64),
      resourceRevision: null,
      policyRevision: "f".repeat(64),
      tenantId: "tenant_test",
      principalId: "user_1",
      expiresAt: 999,
    };
    const { spans } = exportOf([
      started(0),
      turn(1, "turn_1", 1),
      ...toolCallResponse(2, "turn_1", "call_p", "pay"),
      {
        type: "action.approval_requested",
        at: 20,
        data: {
          turnId: "turn_1",
          toolCallId: "call_p",
          toolName: "pay",
          actionId: "action_p",
          input: {},
          sideEffect: "irreversible",
          approvalId: "approval_p",
          policy: { effect: "require_approval", ruleId: "payments", policyRevision: "f".repeat(64), reason: "payments need a person" },
          provenance: [],
          binding,
        },
      },
      { type: "approval.denied", at: 40, data: { actionId: "action_p", approvalId: "approval_p", approver: "ops@example.com", reason: "unknown payee" } },
      {
        type: "action.failed",
        at: 41,
        data: { actionId: "action_p", dispatched: false, retryable: false, retrying: false, result: result("error", "unknown payee", "APPROVAL_DENIED") },
      },
    ]);
    const turnSpan = byName(spans, "turn 1")[0]!;
    expect(turnSpan.events.map((event) => [event.name, event.attributes?.["yoke.action.id"]])).toEqual([["approval.denied", "action_p"]]);
    const pay = byName(spans, "execute_tool pay")[0]!;
    expect([ms(pay.startTime), ms(pay.endTime)]).toEqual([20, 41]);
    expect(pay.attributes).toMatchObject({ [GEN_AI.errorType]: "APPROVAL_DENIED", "yoke.action.state": "failed" });
  });

  it("makes a run that stopped on run.failed an ERROR run span, and a budget_exhausted outcome too", () => {
    const failed = exportOf([
      started(0),
      turn(1, "turn_1", 1),
      { type: "run.failed", at: 5, data: { turnId: "turn_1", code: "PROVIDER_UNAVAILABLE", message: "503", retryable: true } },
    ]);
    const failedRun = byName(failed.spans, "invoke_agent yoke")[0]!;
    expect(failedRun.status).toEqual({ code: SpanStatusCode.ERROR, message: "PROVIDER_UNAVAILABLE: 503" });
    expect(failedRun.attributes[GEN_AI.errorType]).toBe("PROVIDER_UNAVAILABLE");

    const exhausted = exportOf([
      started(0),
      { type: "run.completed", at: 9, data: { outcome: { status: "budget_exhausted", budget: "tokens", limit: 100 }, turns: 0 } },
    ]);
    const exhaustedRun = byName(exhausted.spans, "invoke_agent yoke")[0]!;
    expect(exhaustedRun.status).toEqual({ code: SpanStatusCode.ERROR, message: "budget_exhausted: tokens limit 100" });
    expect(exhaustedRun.attributes["yoke.incomplete"]).toBeUndefined();
  });

  it("resumed after run.failed, the run span ends with the outcome, not the earlier failure", () => {
    const { spans } = exportOf([
      started(0),
      { type: "run.failed", at: 5, data: { code: "PROVIDER_UNAVAILABLE", message: "503", retryable: true } },
      turn(6, "turn_1", 1),
      { type: "run.completed", at: 9, data: { outcome: { status: "completed" }, turns: 1 } },
    ]);
    const run = byName(spans, "invoke_agent yoke")[0]!;
    expect(run.status.code).toBe(SpanStatusCode.UNSET);
    expect(run.events.map((event) => event.name)).toEqual(["run.failed"]);
  });

  it("parents a child run (a subagent) to its parent's spawn_subagent attempt", () => {
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("test");
    const parent = journalOf("run_parent", [
      started(0),
      turn(1, "turn_1", 1),
      ...toolCallResponse(2, "turn_1", "call_s", "spawn_subagent"),
      ...proposed(20, "turn_1", "action_s", "spawn_subagent", "idempotent"),
      { type: "action.leased", at: 20, data: { actionId: "action_s", attemptId: "attempt_s1", attempt: 1, deadlineAt: 900 } },
    ]);
    const child = journalOf("run_sub-s", [started(21, { parent: { runId: "run_parent", actionId: "action_s", contextRevision: 3 } })]);
    const observer = createSpanObserver(tracer, { agentName: "researcher" });
    for (const event of [...parent, ...child]) observer.onEvent(event);
    observer.finish();
    const spans = exporter.getFinishedSpans();
    const attempt = byName(spans, "execute_tool spawn_subagent")[0]!;
    const childRun = spans.find((span) => span.attributes["yoke.run.id"] === "run_sub-s")!;
    expect(childRun.parentSpanContext?.spanId).toBe(attempt.spanContext().spanId);
    expect(childRun.attributes["yoke.run.parent_id"]).toBe("run_parent");
    expect(observer.traceIds).toHaveLength(1);
  });

  it("reads the requested model and output reserve from the compiler's manifest, and names the chat span after it", () => {
    const { spans } = exportOf([
      started(0),
      turn(1, "turn_1", 1),
      ...toolCallResponse(2, "turn_1", "call_m", "noop").slice(0, 1),
      {
        type: "context.compiled",
        at: 2,
        data: {
          turnId: "turn_1",
          revision: 1,
          requestHash: "a".repeat(64),
          manifestDelta: { set: { model: "claude-requested", allocation: { outputReserve: 2048 } } },
        },
      },
      ...toolCallResponse(2, "turn_1", "call_m", "noop").slice(1),
    ]);
    const chat = spans.find((span) => span.attributes[GEN_AI.operationName] === "chat")!;
    expect(chat.name).toBe("chat claude-requested");
    expect(chat.kind).toBe(SpanKind.CLIENT);
    expect(chat.attributes).toMatchObject({
      [GEN_AI.requestModel]: "claude-requested",
      [GEN_AI.requestMaxTokens]: 2048,
      [GEN_AI.responseModel]: "claude-test",
      [GEN_AI.providerName]: semconv.GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
      [GEN_AI.responseId]: "msg_turn_1",
    });
  });

  it("takes small epoch times as epoch times (HrTime), never as performance.now() offsets", () => {
    const { spans } = exportOf([started(5), { type: "run.completed", at: 7, data: { outcome: { status: "completed" }, turns: 0 } }]);
    expect(spans[0]!.startTime).toEqual([0, 5_000_000]);
    expect(spans[0]!.endTime).toEqual([0, 7_000_000]);
  });

  it("ignores event types it does not know and interrupt inbox streams; throws EVENT_INVALID on a known type with bad data", () => {
    const unknown = journalOf("run_1", [started(0)]);
    unknown.push({ ...unknown[0]!, seq: 1, type: "custom.noted", data: { anything: true } });
    const inbox = journalOf("run_1:interrupts", [started(0, { inboxOf: "run_1" })]);
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("test");
    expect(spansFromEvents([...unknown, ...inbox], tracer).spans).toBe(1);
    const bad = journalOf("run_2", [started(0)]);
    bad.push({ ...bad[0]!, seq: 1, type: "turn.started", data: { index: "one" } });
    expect(() => spansFromEvents(bad, tracer)).toThrow(expect.objectContaining({ code: "EVENT_INVALID" }));
    expect(YokeError.isInstance(catchError(() => spansFromEvents(bad, tracer)))).toBe(true);
  });
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
