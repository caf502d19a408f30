// The spans of one run, opened and closed as its events arrive. Times come from the events
// (`at`), never from the wall clock, so a past run gives the same spans as the live one.
import { type Attributes, type Context, type HrTime, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import type { YokeEvent, YokeEventOf } from "@yoke/protocol";
import { GEN_AI, GEN_AI_OPERATION, YOKE } from "./attributes.js";

/** Milliseconds since the epoch as an OTel HrTime: never mistaken for a `performance.now()` reading. */
export function hrTimeOf(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1_000_000)];
}

interface ActionInfo {
  readonly toolName: string;
  readonly toolCallId: string;
  readonly turnId: string;
  readonly at: number;
  readonly attributes: Attributes;
}

interface AttemptSpan {
  readonly span: Span;
  readonly actionId: string;
}

interface ModelCall {
  span: Span;
  attempt: number;
  readonly turnId: string;
  readonly requestHash: string;
}

/** What the recorder needs from its owner: the tracer, names and the parent of a root span. */
export interface RunSpansContext {
  readonly tracer: Tracer;
  readonly agentName: string;
  /** The parent of the run span: the attempt span of a parent run's `spawn_subagent`, or the caller's context. */
  parentOf(started: YokeEventOf<"run.started"> | undefined): Context;
  /** Counts a span this run started. */
  started(): void;
}

const SUCCESS = new Set(["verified_success", "completed"]);

export class RunSpans {
  readonly runId: string;
  private readonly run: Span;
  private readonly runContext: Context;
  private readonly turns = new Map<string, Span>();
  private currentTurn: string | undefined;
  private readonly calls = new Map<string, ModelCall>();
  private readonly actions = new Map<string, ActionInfo>();
  private readonly attempts = new Map<string, AttemptSpan>();
  private readonly verifiers = new Map<string, Span>();
  private readonly compensations = new Map<string, Span>();
  private requestModel: string | undefined;
  private maxTokens: number | undefined;
  private provider: string | undefined;
  private failure: YokeEventOf<"run.failed"> | undefined;
  private lastAt: number;
  private ended = false;

  constructor(
    private readonly owner: RunSpansContext,
    first: YokeEvent,
  ) {
    this.runId = first.runId;
    this.lastAt = first.at;
    const started = first.type === "run.started" ? first : undefined;
    const attributes: Attributes = {
      [GEN_AI.operationName]: GEN_AI_OPERATION.invokeAgent,
      [GEN_AI.agentName]: owner.agentName,
      [YOKE.tenantId]: first.tenantId,
      [YOKE.runId]: first.runId,
    };
    if (started) {
      attributes[GEN_AI.conversationId] = started.data.sessionId;
      attributes[YOKE.sessionId] = started.data.sessionId;
      attributes[YOKE.runtime] = started.data.release.runtime;
      attributes[YOKE.maxTurns] = started.data.limits.maxTurns;
      if (started.data.parent) attributes[YOKE.parentRunId] = started.data.parent.runId;
    }
    const parent = owner.parentOf(started);
    this.run = this.start(`${GEN_AI_OPERATION.invokeAgent} ${owner.agentName}`, first.at, attributes, parent, SpanKind.INTERNAL);
    this.runContext = trace.setSpan(parent, this.run);
  }

  /** The open span of an action's current attempt, for a child run's parent link. */
  attemptSpan(actionId: string): Span | undefined {
    return this.attempts.get(actionId)?.span;
  }

  /** The run's own span (the root of its trace, unless a parent run's attempt holds it). */
  get span(): Span {
    return this.run;
  }

  get finished(): boolean {
    return this.ended;
  }

  record(event: YokeEvent): void {
    if (this.ended) return;
    this.lastAt = Math.max(this.lastAt, event.at);
    if (event.type !== "run.failed") this.failure = undefined;
    switch (event.type) {
      case "run.started":
        return;
      case "turn.started":
        return this.turnStarted(event);
      case "context.compiled":
        return this.contextCompiled(event);
      case "model.requested":
        return this.modelRequested(event);
      case "model.failed":
        return this.modelFailed(event);
      case "model.responded":
        return this.modelResponded(event);
      case "tool.rejected":
      // The calls past the cap, answered together: one span, however many there were.
      case "tool.excess_rejected":
        return this.toolRejected(event);
      case "action.admitted":
      case "action.proposed":
      case "action.approval_requested":
        return this.actionProposed(event);
      case "action.validated":
      case "action.authorized":
      case "action.executing":
      case "approval.granted":
      case "approval.denied":
      case "approval.voided":
        return this.actionStep(event);
      case "action.leased":
        return this.actionLeased(event);
      case "action.committed":
        return this.actionCommitted(event);
      case "action.uncertain":
        return this.actionUncertain(event);
      case "action.failed":
        return this.actionFailed(event);
      case "action.reconciled":
        return this.actionReconciled(event);
      case "action.compensating":
      case "action.compensated":
      case "action.compensation_failed":
        return this.compensation(event);
      case "verifier.started":
      case "verifier.finished":
        return this.verifier(event);
      case "run.failed":
        this.failure = event;
        this.run.addEvent(event.type, { [GEN_AI.errorType]: event.data.code, message: event.data.message }, hrTimeOf(event.at));
        return;
      case "run.completed":
        return this.runCompleted(event);
      case "run.waiting":
      case "loop.detected":
      case "input.added":
      case "interrupt.landed":
      case "completion.checked":
      case "tool.drifted":
      case "tool.readmitted":
        return this.note(event);
      default:
        // budget.*, interrupt.requested (inbox streams) and legacy tool.* events: no span of their own.
        return;
    }
  }

  /** Ends every span still open at the last event's time, marked incomplete (a run that waits, or stopped). */
  finish(): void {
    if (this.ended) return;
    const end = this.lastAt;
    const incomplete = { [YOKE.incomplete]: true };
    for (const { span } of this.attempts.values()) span.setAttributes(incomplete).end(hrTimeOf(end));
    for (const call of this.calls.values()) call.span.setAttributes(incomplete).end(hrTimeOf(end));
    for (const span of [...this.verifiers.values(), ...this.compensations.values(), ...this.turns.values()]) {
      span.setAttributes(incomplete).end(hrTimeOf(end));
    }
    if (this.failure) fail(this.run, this.failure.data.code, this.failure.data.message);
    this.run.setAttributes(incomplete).end(hrTimeOf(end));
    this.clear();
  }

  private start(name: string, at: number, attributes: Attributes, parent: Context, kind: SpanKind): Span {
    this.owner.started();
    return this.owner.tracer.startSpan(name, { kind, startTime: hrTimeOf(at), attributes }, parent);
  }

  private turnContext(turnId: string | undefined): Context {
    const span = turnId === undefined ? undefined : this.turns.get(turnId);
    return span ? trace.setSpan(this.runContext, span) : this.runContext;
  }

  /** The turn's span while it is open, else the run's. */
  private spanOfTurn(turnId: string | undefined): Span {
    return (turnId === undefined ? undefined : this.turns.get(turnId)) ?? this.run;
  }

  private turnStarted(event: YokeEventOf<"turn.started">): void {
    if (this.currentTurn !== undefined) this.endTurn(this.currentTurn, event.at);
    const attributes = { [YOKE.turnId]: event.data.turnId, [YOKE.turnIndex]: event.data.index };
    this.turns.set(event.data.turnId, this.start(`turn ${event.data.index}`, event.at, attributes, this.runContext, SpanKind.INTERNAL));
    this.currentTurn = event.data.turnId;
  }

  private endTurn(turnId: string, at: number): void {
    this.turns.get(turnId)?.end(hrTimeOf(at));
    this.turns.delete(turnId);
  }

  private contextCompiled(event: YokeEventOf<"context.compiled">): void {
    // The compiler's manifest delta sets only what changed: keep the last model and output reserve.
    const set = (event.data.manifestDelta as { set?: { model?: unknown; allocation?: { outputReserve?: unknown } } }).set;
    if (typeof set?.model === "string") this.requestModel = set.model;
    if (typeof set?.allocation?.outputReserve === "number") this.maxTokens = set.allocation.outputReserve;
    const call = this.calls.get(event.data.turnId);
    if (call && call.requestHash === event.data.requestHash) this.describeRequest(call.span);
  }

  private describeRequest(span: Span): void {
    if (this.requestModel !== undefined) {
      span.setAttribute(GEN_AI.requestModel, this.requestModel);
      span.updateName(`${GEN_AI_OPERATION.chat} ${this.requestModel}`);
    }
    if (this.maxTokens !== undefined) span.setAttribute(GEN_AI.requestMaxTokens, this.maxTokens);
  }

  private modelRequested(event: YokeEventOf<"model.requested">): void {
    this.calls
      .get(event.data.turnId)
      ?.span.setAttributes({ [YOKE.incomplete]: true })
      .end(hrTimeOf(event.at));
    this.openCall(event.data.turnId, event.data.requestHash, 1, event.at);
  }

  private openCall(turnId: string, requestHash: string, attempt: number, at: number): ModelCall {
    const attributes: Attributes = {
      [GEN_AI.operationName]: GEN_AI_OPERATION.chat,
      [YOKE.turnId]: turnId,
      [YOKE.requestHash]: requestHash,
      [YOKE.modelAttempt]: attempt,
    };
    if (this.provider !== undefined) attributes[GEN_AI.providerName] = this.provider;
    const span = this.start(GEN_AI_OPERATION.chat, at, attributes, this.turnContext(turnId), SpanKind.CLIENT);
    this.describeRequest(span);
    const call = { span, attempt, turnId, requestHash };
    this.calls.set(turnId, call);
    return call;
  }

  private modelFailed(event: YokeEventOf<"model.failed">): void {
    const { turnId, attempt, code, message, retryable, retrying, requestId } = event.data;
    const call = this.calls.get(turnId) ?? this.openCall(turnId, "", attempt, event.at);
    call.span.setAttributes({ [YOKE.modelAttempt]: attempt, [YOKE.retryable]: retryable, [YOKE.retrying]: retrying });
    if (requestId !== undefined) call.span.setAttribute(YOKE.providerRequestId, requestId);
    fail(call.span, code, message);
    call.span.end(hrTimeOf(event.at));
    this.calls.delete(turnId);
    if (retrying) this.openCall(turnId, call.requestHash, attempt + 1, event.at);
  }

  private modelResponded(event: YokeEventOf<"model.responded">): void {
    const { turnId, response, latencyMs } = event.data;
    const call = this.calls.get(turnId) ?? this.openCall(turnId, "", 1, Math.max(0, event.at - latencyMs));
    this.provider = response.provider;
    const usage = response.usage;
    const attributes: Attributes = {
      [GEN_AI.providerName]: response.provider,
      [GEN_AI.responseModel]: response.model,
      [GEN_AI.responseFinishReasons]: [response.rawStopReason ?? response.stopReason],
      [GEN_AI.usageInputTokens]: usage.inputTokens,
      [GEN_AI.usageOutputTokens]: usage.outputTokens,
      [YOKE.stopReason]: response.stopReason,
    };
    if (response.id !== undefined) attributes[GEN_AI.responseId] = response.id;
    if (response.requestId !== undefined) attributes[YOKE.providerRequestId] = response.requestId;
    if (usage.cacheReadTokens !== undefined) attributes[GEN_AI.usageCacheReadInputTokens] = usage.cacheReadTokens;
    if (usage.cacheWriteTokens !== undefined) attributes[GEN_AI.usageCacheCreationInputTokens] = usage.cacheWriteTokens;
    if (usage.reasoningTokens !== undefined) attributes[GEN_AI.usageReasoningOutputTokens] = usage.reasoningTokens;
    call.span.setAttributes(attributes);
    if (this.requestModel === undefined) call.span.updateName(`${GEN_AI_OPERATION.chat} ${response.model}`);
    call.span.end(hrTimeOf(event.at));
    this.calls.delete(turnId);
  }

  private toolSpan(info: ActionInfo, at: number, extra: Attributes): Span {
    const attributes: Attributes = {
      [GEN_AI.operationName]: GEN_AI_OPERATION.executeTool,
      [GEN_AI.toolName]: info.toolName,
      [GEN_AI.toolCallId]: info.toolCallId,
      [GEN_AI.toolType]: "function",
      [YOKE.turnId]: info.turnId,
      ...info.attributes,
      ...extra,
    };
    return this.start(`${GEN_AI_OPERATION.executeTool} ${info.toolName}`, at, attributes, this.turnContext(info.turnId), SpanKind.INTERNAL);
  }

  private toolRejected(event: YokeEventOf<"tool.rejected" | "tool.excess_rejected">): void {
    const { turnId, toolCallId, toolName, code, result } = event.data;
    const span = this.toolSpan({ toolName, toolCallId, turnId, at: event.at, attributes: {} }, event.at, { [YOKE.actionState]: "rejected" });
    fail(span, code, result.error?.message ?? code);
    span.end(hrTimeOf(event.at));
  }

  private actionProposed(event: YokeEventOf<"action.admitted" | "action.proposed" | "action.approval_requested">): void {
    const { actionId, toolName, toolCallId, turnId, sideEffect, toolRevision } = event.data;
    const attributes: Attributes = { [YOKE.actionId]: actionId, [YOKE.sideEffect]: sideEffect };
    if (toolRevision !== undefined) attributes[YOKE.toolRevision] = toolRevision;
    const info = { toolName, toolCallId, turnId, at: event.at, attributes };
    this.actions.set(actionId, info);
    if (event.type !== "action.admitted") return;
    const span = this.toolSpan(info, event.at, {
      [YOKE.attemptId]: event.data.attemptId,
      [YOKE.attempt]: event.data.attempt,
      [YOKE.policyRule]: event.data.rule,
      [YOKE.actionState]: "executing",
    });
    span.addEvent(event.type, {}, hrTimeOf(event.at));
    this.attempts.set(actionId, { span, actionId });
  }

  private actionStep(
    event: YokeEventOf<"action.validated" | "action.authorized" | "action.executing" | "approval.granted" | "approval.denied" | "approval.voided">,
  ): void {
    const info = this.actions.get(event.data.actionId);
    if (info && event.type === "action.authorized") (info.attributes as Record<string, string>)[YOKE.policyRule] = event.data.rule;
    const attempt = this.attempts.get(event.data.actionId);
    if (!attempt) {
      // A person's decision on a parked action comes before any attempt: note it on its turn.
      if (event.type.startsWith("approval.")) this.spanOfTurn(info?.turnId).addEvent(event.type, { [YOKE.actionId]: event.data.actionId }, hrTimeOf(event.at));
      return;
    }
    attempt.span.addEvent(event.type, {}, hrTimeOf(event.at));
    if (event.type === "action.executing") attempt.span.setAttribute(YOKE.actionState, "executing");
  }

  private actionLeased(event: YokeEventOf<"action.leased">): void {
    const { actionId, attemptId, attempt } = event.data;
    const info = this.actions.get(actionId);
    if (!info) return;
    this.attempts
      .get(actionId)
      ?.span.setAttributes({ [YOKE.incomplete]: true })
      .end(hrTimeOf(event.at));
    const span = this.toolSpan(info, event.at, { [YOKE.attemptId]: attemptId, [YOKE.attempt]: attempt, [YOKE.actionState]: "leased" });
    span.addEvent(event.type, {}, hrTimeOf(event.at));
    this.attempts.set(actionId, { span, actionId });
  }

  /** The open attempt of an action, or a zero-length one for an action observed only from here on. */
  private attemptOf(actionId: string, at: number): Span | undefined {
    const open = this.attempts.get(actionId)?.span;
    if (open) return open;
    const info = this.actions.get(actionId);
    return info ? this.toolSpan(info, Math.min(info.at, at), {}) : undefined;
  }

  private closeAttempt(actionId: string, span: Span, at: number): void {
    span.end(hrTimeOf(at));
    this.attempts.delete(actionId);
  }

  private actionCommitted(event: YokeEventOf<"action.committed">): void {
    const span = this.attemptOf(event.data.actionId, event.at);
    if (!span) return;
    span.setAttributes({ [YOKE.actionState]: "committed", [YOKE.receipt]: event.data.receipt !== undefined });
    if (event.data.result.status === "error") fail(span, event.data.result.error?.code ?? "TOOL_FAILED", event.data.result.error?.message ?? "");
    this.closeAttempt(event.data.actionId, span, event.at);
  }

  private actionUncertain(event: YokeEventOf<"action.uncertain">): void {
    const span = this.attemptOf(event.data.actionId, event.at);
    if (!span) return;
    // Stays open: only reconciliation says whether the effect happened.
    span.setAttribute(YOKE.actionState, "uncertain").addEvent(event.type, { reason: event.data.reason }, hrTimeOf(event.at));
    this.attempts.set(event.data.actionId, { span, actionId: event.data.actionId });
  }

  private actionFailed(event: YokeEventOf<"action.failed">): void {
    const { actionId, dispatched, retryable, retrying, result } = event.data;
    const span = this.attemptOf(actionId, event.at);
    if (!span) return;
    span.setAttributes({ [YOKE.actionState]: "failed", [YOKE.dispatched]: dispatched, [YOKE.retryable]: retryable, [YOKE.retrying]: retrying });
    if (event.data.attemptId !== undefined) span.setAttribute(YOKE.attemptId, event.data.attemptId);
    fail(span, result.error?.code ?? "TOOL_FAILED", result.error?.message ?? "");
    this.closeAttempt(actionId, span, event.at);
  }

  private actionReconciled(event: YokeEventOf<"action.reconciled">): void {
    const { actionId, verdict, receipt } = event.data;
    const span = this.attemptOf(actionId, event.at);
    if (!span) return;
    const state = verdict === "applied" ? "committed" : verdict === "unknown" ? "uncertain" : "failed";
    span.setAttributes({ [YOKE.reconciliation]: verdict, [YOKE.actionState]: state, [YOKE.receipt]: receipt !== undefined });
    span.addEvent(event.type, { verdict }, hrTimeOf(event.at));
    if (verdict !== "applied") fail(span, "TOOL_OUTCOME_UNKNOWN", `reconciliation: ${verdict}`);
    this.closeAttempt(actionId, span, event.at);
  }

  private compensation(event: YokeEventOf<"action.compensating" | "action.compensated" | "action.compensation_failed">): void {
    const { actionId } = event.data;
    if (event.type === "action.compensating") {
      const info = this.actions.get(actionId);
      const attributes: Attributes = { [YOKE.actionId]: actionId, reason: event.data.reason };
      const name = `compensate ${info?.toolName ?? actionId}`;
      this.compensations.set(actionId, this.start(name, event.at, attributes, this.turnContext(this.currentTurn), SpanKind.INTERNAL));
      return;
    }
    const span = this.compensations.get(actionId);
    if (!span) return;
    if (event.type === "action.compensation_failed") fail(span, "TOOL_COMPENSATION_FAILED", event.data.message);
    span.end(hrTimeOf(event.at));
    this.compensations.delete(actionId);
  }

  private verifier(event: YokeEventOf<"verifier.started" | "verifier.finished">): void {
    const { verifierRunId } = event.data;
    if (event.type === "verifier.started") {
      const attributes = {
        [YOKE.verifierId]: event.data.verifierId,
        [YOKE.verifierRunId]: verifierRunId,
        [YOKE.verifierAttempt]: event.data.attempt,
        [YOKE.turnId]: event.data.turnId,
      };
      const span = this.start(`verify ${event.data.verifierId}`, event.at, attributes, this.turnContext(event.data.turnId), SpanKind.INTERNAL);
      this.verifiers.set(verifierRunId, span);
      return;
    }
    const span = this.verifiers.get(verifierRunId);
    if (!span) return;
    span.setAttribute(YOKE.verifierPassed, event.data.verdict.passed);
    if (!event.data.verdict.passed && event.data.verdict.reason !== undefined) span.setAttribute("yoke.verifier.reason", event.data.verdict.reason);
    span.end(hrTimeOf(event.at));
    this.verifiers.delete(verifierRunId);
  }

  private note(
    event: YokeEventOf<"run.waiting" | "loop.detected" | "input.added" | "interrupt.landed" | "completion.checked" | "tool.drifted" | "tool.readmitted">,
  ): void {
    const span = this.spanOfTurn("turnId" in event.data ? event.data.turnId : this.currentTurn);
    const attributes: Attributes = {};
    if (event.type === "run.waiting") Object.assign(attributes, { kind: event.data.kind, reason: event.data.reason });
    if (event.type === "loop.detected") Object.assign(attributes, { [GEN_AI.toolName]: event.data.toolName, response: event.data.response });
    if (event.type === "input.added") attributes.source = event.data.source;
    if (event.type === "completion.checked") attributes.passed = event.data.passed;
    span.addEvent(event.type, attributes, hrTimeOf(event.at));
  }

  private runCompleted(event: YokeEventOf<"run.completed">): void {
    const { outcome, turns } = event.data;
    for (const { span } of this.attempts.values()) span.end(hrTimeOf(event.at));
    for (const call of this.calls.values()) call.span.end(hrTimeOf(event.at));
    for (const span of [...this.verifiers.values(), ...this.compensations.values(), ...this.turns.values()]) span.end(hrTimeOf(event.at));
    this.run.setAttributes({ [YOKE.outcome]: outcome.status, [YOKE.turns]: turns });
    if (outcome.status === "budget_exhausted") fail(this.run, outcome.status, `${outcome.budget} limit ${outcome.limit}`);
    else if (!SUCCESS.has(outcome.status)) fail(this.run, outcome.status, "reason" in outcome ? outcome.reason : "");
    this.run.end(hrTimeOf(event.at));
    this.clear();
  }

  private clear(): void {
    this.attempts.clear();
    this.calls.clear();
    this.verifiers.clear();
    this.compensations.clear();
    this.turns.clear();
    this.currentTurn = undefined;
    this.ended = true;
  }
}

/** ERROR status with the Yoke error code, and `error.type` as the conventions ask. */
function fail(span: Span, code: string, message: string): void {
  span.setAttribute(GEN_AI.errorType, code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: message === "" ? code : `${code}: ${message}` });
}
