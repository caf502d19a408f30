// The spans of tool calls (`execute_tool <tool>`): one per attempt of an action, from admission or
// lease to commit, failure or reconciliation; rejected calls and compensations beside them.
import { type Attributes, type Span, SpanKind } from "@opentelemetry/api";
import type { YokeEventOf } from "@yoke/protocol";
import { GEN_AI, GEN_AI_OPERATION, YOKE } from "./attributes.js";
import { fail, hrTimeOf, type SpanHost } from "./span-host.js";

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

export type ActionStepEvent = YokeEventOf<
  "action.validated" | "action.authorized" | "action.executing" | "approval.granted" | "approval.denied" | "approval.voided"
>;
export type CompensationEvent = YokeEventOf<"action.compensating" | "action.compensated" | "action.compensation_failed">;

export class ActionSpans {
  private readonly actions = new Map<string, ActionInfo>();
  private readonly attempts = new Map<string, AttemptSpan>();
  private readonly compensations = new Map<string, Span>();

  constructor(private readonly host: SpanHost) {}

  /** The open span of an action's current attempt, for a child run's parent link. */
  attemptSpan(actionId: string): Span | undefined {
    return this.attempts.get(actionId)?.span;
  }

  toolRejected(event: YokeEventOf<"tool.rejected" | "tool.excess_rejected">): void {
    const { turnId, toolCallId, toolName, code, result } = event.data;
    const span = this.toolSpan({ toolName, toolCallId, turnId, at: event.at, attributes: {} }, event.at, { [YOKE.actionState]: "rejected" });
    fail(span, code, result.error?.message ?? code);
    span.end(hrTimeOf(event.at));
  }

  actionProposed(event: YokeEventOf<"action.admitted" | "action.proposed" | "action.approval_requested">): void {
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

  actionStep(event: ActionStepEvent): void {
    const info = this.actions.get(event.data.actionId);
    if (info && event.type === "action.authorized") (info.attributes as Record<string, string>)[YOKE.policyRule] = event.data.rule;
    const attempt = this.attempts.get(event.data.actionId);
    if (!attempt) {
      // A person's decision on a parked action comes before any attempt: note it on its turn.
      if (event.type.startsWith("approval."))
        this.host.spanOfTurn(info?.turnId).addEvent(event.type, { [YOKE.actionId]: event.data.actionId }, hrTimeOf(event.at));
      return;
    }
    attempt.span.addEvent(event.type, {}, hrTimeOf(event.at));
    if (event.type === "action.executing") attempt.span.setAttribute(YOKE.actionState, "executing");
  }

  actionLeased(event: YokeEventOf<"action.leased">): void {
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

  actionCommitted(event: YokeEventOf<"action.committed">): void {
    const span = this.attemptOf(event.data.actionId, event.at);
    if (!span) return;
    span.setAttributes({ [YOKE.actionState]: "committed", [YOKE.receipt]: event.data.receipt !== undefined });
    if (event.data.result.status === "error") fail(span, event.data.result.error?.code ?? "TOOL_FAILED", event.data.result.error?.message ?? "");
    this.closeAttempt(event.data.actionId, span, event.at);
  }

  actionUncertain(event: YokeEventOf<"action.uncertain">): void {
    const span = this.attemptOf(event.data.actionId, event.at);
    if (!span) return;
    // Stays open: only reconciliation says whether the effect happened.
    span.setAttribute(YOKE.actionState, "uncertain").addEvent(event.type, { reason: event.data.reason }, hrTimeOf(event.at));
    this.attempts.set(event.data.actionId, { span, actionId: event.data.actionId });
  }

  actionFailed(event: YokeEventOf<"action.failed">): void {
    const { actionId, dispatched, retryable, retrying, result } = event.data;
    const span = this.attemptOf(actionId, event.at);
    if (!span) return;
    span.setAttributes({ [YOKE.actionState]: "failed", [YOKE.dispatched]: dispatched, [YOKE.retryable]: retryable, [YOKE.retrying]: retrying });
    if (event.data.attemptId !== undefined) span.setAttribute(YOKE.attemptId, event.data.attemptId);
    fail(span, result.error?.code ?? "TOOL_FAILED", result.error?.message ?? "");
    this.closeAttempt(actionId, span, event.at);
  }

  actionReconciled(event: YokeEventOf<"action.reconciled">): void {
    const { actionId, verdict, receipt } = event.data;
    const span = this.attemptOf(actionId, event.at);
    if (!span) return;
    const state = verdict === "applied" ? "committed" : verdict === "unknown" ? "uncertain" : "failed";
    span.setAttributes({ [YOKE.reconciliation]: verdict, [YOKE.actionState]: state, [YOKE.receipt]: receipt !== undefined });
    span.addEvent(event.type, { verdict }, hrTimeOf(event.at));
    if (verdict !== "applied") fail(span, "TOOL_OUTCOME_UNKNOWN", `reconciliation: ${verdict}`);
    this.closeAttempt(actionId, span, event.at);
  }

  compensation(event: CompensationEvent): void {
    const { actionId } = event.data;
    if (event.type === "action.compensating") {
      const info = this.actions.get(actionId);
      const attributes: Attributes = { [YOKE.actionId]: actionId, reason: event.data.reason };
      const name = `compensate ${info?.toolName ?? actionId}`;
      this.compensations.set(actionId, this.host.start(name, event.at, attributes, this.host.turnContext(this.host.currentTurn), SpanKind.INTERNAL));
      return;
    }
    const span = this.compensations.get(actionId);
    if (!span) return;
    if (event.type === "action.compensation_failed") fail(span, "TOOL_COMPENSATION_FAILED", event.data.message);
    span.end(hrTimeOf(event.at));
    this.compensations.delete(actionId);
  }

  /** The attempts still open, ended at `at` with `attributes` (the incomplete mark, when the run did not end). */
  endAttempts(at: number, attributes?: Attributes): void {
    for (const { span } of this.attempts.values()) (attributes ? span.setAttributes(attributes) : span).end(hrTimeOf(at));
    this.attempts.clear();
  }

  /** The compensations still open; ended by the run with its turns and verifiers. */
  openCompensations(): Span[] {
    return [...this.compensations.values()];
  }

  clear(): void {
    this.attempts.clear();
    this.compensations.clear();
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
    const name = `${GEN_AI_OPERATION.executeTool} ${info.toolName}`;
    return this.host.start(name, at, attributes, this.host.turnContext(info.turnId), SpanKind.INTERNAL);
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
}
