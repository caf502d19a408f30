// The spans of one run, opened and closed as its events arrive. Times come from the events
// (`at`), never from the wall clock, so a past run gives the same spans as the live one.
// The run holds its own span, its turns and verifiers; model calls and tool attempts have
// recorders of their own (`model-call-spans.ts`, `action-spans.ts`).
import { type Attributes, type Context, type Span, SpanKind, type Tracer, trace } from "@opentelemetry/api";
import type { YokeEvent, YokeEventOf } from "@yoke/protocol";
import { ActionSpans } from "./action-spans.js";
import { GEN_AI, GEN_AI_OPERATION, YOKE } from "./attributes.js";
import { ModelCallSpans } from "./model-call-spans.js";
import { fail, hrTimeOf, type SpanHost } from "./span-host.js";

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

type NoteEvent = YokeEventOf<"run.waiting" | "loop.detected" | "input.added" | "interrupt.landed" | "completion.checked" | "tool.drifted" | "tool.readmitted">;

export class RunSpans implements SpanHost {
  readonly runId: string;
  private readonly run: Span;
  private readonly runContext: Context;
  private readonly turns = new Map<string, Span>();
  private turn: string | undefined;
  private readonly calls = new ModelCallSpans(this);
  private readonly actions = new ActionSpans(this);
  private readonly verifiers = new Map<string, Span>();
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
    return this.actions.attemptSpan(actionId);
  }

  /** The run's own span (the root of its trace, unless a parent run's attempt holds it). */
  get span(): Span {
    return this.run;
  }

  /** The turn that started last, while the run is open. */
  get currentTurn(): string | undefined {
    return this.turn;
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
        return this.calls.contextCompiled(event);
      case "model.requested":
        return this.calls.modelRequested(event);
      case "model.failed":
        return this.calls.modelFailed(event);
      case "model.responded":
        return this.calls.modelResponded(event);
      case "tool.rejected":
      // The calls past the cap, answered together: one span, however many there were.
      case "tool.excess_rejected":
        return this.actions.toolRejected(event);
      case "action.admitted":
      case "action.proposed":
      case "action.approval_requested":
        return this.actions.actionProposed(event);
      case "action.validated":
      case "action.authorized":
      case "action.executing":
      case "approval.granted":
      case "approval.denied":
      case "approval.voided":
        return this.actions.actionStep(event);
      case "action.leased":
        return this.actions.actionLeased(event);
      case "action.committed":
        return this.actions.actionCommitted(event);
      case "action.uncertain":
        return this.actions.actionUncertain(event);
      case "action.failed":
        return this.actions.actionFailed(event);
      case "action.reconciled":
        return this.actions.actionReconciled(event);
      case "action.compensating":
      case "action.compensated":
      case "action.compensation_failed":
        return this.actions.compensation(event);
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
    this.endOpen(end, incomplete);
    if (this.failure) fail(this.run, this.failure.data.code, this.failure.data.message);
    this.run.setAttributes(incomplete).end(hrTimeOf(end));
    this.clear();
  }

  start(name: string, at: number, attributes: Attributes, parent: Context, kind: SpanKind): Span {
    this.owner.started();
    return this.owner.tracer.startSpan(name, { kind, startTime: hrTimeOf(at), attributes }, parent);
  }

  turnContext(turnId: string | undefined): Context {
    const span = turnId === undefined ? undefined : this.turns.get(turnId);
    return span ? trace.setSpan(this.runContext, span) : this.runContext;
  }

  spanOfTurn(turnId: string | undefined): Span {
    return (turnId === undefined ? undefined : this.turns.get(turnId)) ?? this.run;
  }

  private turnStarted(event: YokeEventOf<"turn.started">): void {
    if (this.turn !== undefined) this.endTurn(this.turn, event.at);
    const attributes = { [YOKE.turnId]: event.data.turnId, [YOKE.turnIndex]: event.data.index };
    this.turns.set(event.data.turnId, this.start(`turn ${event.data.index}`, event.at, attributes, this.runContext, SpanKind.INTERNAL));
    this.turn = event.data.turnId;
  }

  private endTurn(turnId: string, at: number): void {
    this.turns.get(turnId)?.end(hrTimeOf(at));
    this.turns.delete(turnId);
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

  private note(event: NoteEvent): void {
    const span = this.spanOfTurn("turnId" in event.data ? event.data.turnId : this.turn);
    const attributes: Attributes = {};
    if (event.type === "run.waiting") Object.assign(attributes, { kind: event.data.kind, reason: event.data.reason });
    if (event.type === "loop.detected") Object.assign(attributes, { [GEN_AI.toolName]: event.data.toolName, response: event.data.response });
    if (event.type === "input.added") attributes.source = event.data.source;
    if (event.type === "completion.checked") attributes.passed = event.data.passed;
    span.addEvent(event.type, attributes, hrTimeOf(event.at));
  }

  private runCompleted(event: YokeEventOf<"run.completed">): void {
    const { outcome, turns } = event.data;
    this.endOpen(event.at);
    this.run.setAttributes({ [YOKE.outcome]: outcome.status, [YOKE.turns]: turns });
    if (outcome.status === "budget_exhausted") fail(this.run, outcome.status, `${outcome.budget} limit ${outcome.limit}`);
    else if (!SUCCESS.has(outcome.status)) fail(this.run, outcome.status, "reason" in outcome ? outcome.reason : "");
    this.run.end(hrTimeOf(event.at));
    this.clear();
  }

  /** Ends the open attempts, calls, verifiers, compensations and turns, in that order. */
  private endOpen(at: number, attributes?: Attributes): void {
    this.actions.endAttempts(at, attributes);
    this.calls.endAll(at, attributes);
    for (const span of [...this.verifiers.values(), ...this.actions.openCompensations(), ...this.turns.values()]) {
      (attributes ? span.setAttributes(attributes) : span).end(hrTimeOf(at));
    }
  }

  private clear(): void {
    this.actions.clear();
    this.calls.clear();
    this.verifiers.clear();
    this.turns.clear();
    this.turn = undefined;
    this.ended = true;
  }
}
