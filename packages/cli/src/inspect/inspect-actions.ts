import type { ActionStatus, JsonValue, ToolResultEnvelope, YokeEvent } from "@yoke/protocol";
import { transitionAction, type ActionTransitionInput } from "@yoke/protocol/journal-utils";
import { decisionFactsOf, laterDecisionFacts } from "./decision-facts.js";
import type { ActionStep, ActionView, AttemptView, InspectProblem, ResultView } from "./run-view.js";

type MutableAttempt = { -readonly [K in keyof AttemptView]: AttemptView[K] };

/** An action being folded: its view fields and the protocol state machine's status. */
interface ActionDraft {
  view: { -readonly [K in keyof Omit<ActionView, "state" | "steps" | "attempts" | "reconciliations" | "compensations">]: ActionView[K] } & {
    steps: ActionStep[];
    attempts: MutableAttempt[];
    reconciliations: { seq: number; verdict: string; receipt: JsonValue | undefined }[];
    compensations: { seq: number; step: "compensating" | "compensated" | "compensation_failed"; detail: string | undefined }[];
  };
  status: ActionStatus | undefined;
}

export function resultView(
  result: ToolResultEnvelope | { status: "ok" | "error"; content: readonly { text: string }[]; error?: { code: string }; truncation?: unknown },
): ResultView {
  return {
    status: result.status,
    text: result.content.map((part) => part.text).join("\n"),
    errorCode: result.error?.code,
    truncated: result.truncation !== undefined,
  };
}

const ADMITTED_STATES = ["proposed", "validated", "authorized", "leased", "executing"] as const;

/**
 * Folds every `action.*` event into per-action views with their state strip, using the
 * protocol's one transition function (so the strip shows exactly the states the runtime's
 * own fold accepts). An illegal transition is reported as a problem and still shown.
 */
export class ActionFolder {
  readonly #actions = new Map<string, ActionDraft>();
  readonly #problems: InspectProblem[];

  constructor(problems: InspectProblem[]) {
    this.#problems = problems;
  }

  /**
   * Applies one event; returns the action id it moved (undefined for other events). `written`:
   * the event's data as stored, where decision facts are read (default: the parsed data).
   */
  apply(event: YokeEvent, written: unknown = event.data): string | undefined {
    switch (event.type) {
      case "action.admitted":
      case "action.proposed":
      case "action.approval_requested": {
        const data = event.data;
        const draft: ActionDraft = {
          view: {
            actionId: data.actionId,
            turnId: data.turnId,
            toolCallId: data.toolCallId,
            toolName: data.toolName,
            toolRevision: data.toolRevision,
            sideEffect: data.sideEffect,
            // Absent only for an `inputFromCall` nothing could give back (listed as a problem).
            input: data.input ?? null,
            authorization: event.type === "action.admitted" ? { seq: event.seq, rule: event.data.rule, approvalId: undefined } : undefined,
            influence: event.type === "action.proposed" ? undefined : event.data.influence,
            ...(event.type === "action.proposed" || event.data.carries === undefined ? {} : { carries: event.data.carries }),
            decisionFacts: event.type === "action.proposed" ? [] : decisionFactsOf(written),
            ...(event.type === "action.proposed" || event.data.delegation === undefined ? {} : { delegation: event.data.delegation }),
            result: undefined,
            receipt: undefined,
            firstSeq: event.seq,
            steps: [],
            attempts: [],
            reconciliations: [],
            compensations: [],
          },
          status: undefined,
        };
        if (this.#actions.has(data.actionId)) this.#problems.push({ seq: event.seq, message: `action ${data.actionId} proposed twice` });
        this.#actions.set(data.actionId, draft);
        if (event.type === "action.admitted") {
          const next = this.#move(draft, event, { type: "action.admitted" });
          if (next) {
            draft.view.steps.push(...ADMITTED_STATES.map((state) => ({ state, seq: event.seq, at: event.at, event: event.type, attempt: 1 })));
            draft.view.attempts.push(attempt(1, event.data.attemptId, event.seq, event.data.deadlineAt, event.seq));
          }
        } else if (event.type === "action.approval_requested") {
          if (this.#move(draft, event, { type: "action.approval_requested" })) {
            for (const state of ["proposed", "validated", "awaiting_approval"] as const)
              draft.view.steps.push({ state, seq: event.seq, at: event.at, event: event.type, attempt: 0 });
          }
        } else {
          this.#step(draft, event, { type: "action.proposed" });
        }
        return data.actionId;
      }
      case "action.validated":
      case "action.executing":
      case "action.compensating":
      case "action.compensated":
      case "action.compensation_failed": {
        const draft = this.#find(event, event.data.actionId);
        if (!draft) return undefined;
        this.#step(draft, event, { type: event.type });
        if (event.type === "action.executing") {
          const current = draft.view.attempts.find((entry) => entry.attemptId === event.data.attemptId);
          if (current) current.executingSeq = event.seq;
        }
        if (event.type === "action.compensating") draft.view.compensations.push({ seq: event.seq, step: "compensating", detail: event.data.reason });
        if (event.type === "action.compensated") draft.view.compensations.push({ seq: event.seq, step: "compensated", detail: undefined });
        if (event.type === "action.compensation_failed")
          draft.view.compensations.push({ seq: event.seq, step: "compensation_failed", detail: event.data.message });
        return event.data.actionId;
      }
      case "action.authorized": {
        const draft = this.#find(event, event.data.actionId);
        if (!draft) return undefined;
        this.#step(draft, event, { type: "action.authorized" });
        draft.view.authorization = { seq: event.seq, rule: event.data.rule, approvalId: event.data.approvalId };
        if (event.data.influence !== undefined) draft.view.influence = event.data.influence;
        if (event.data.carries !== undefined) draft.view.carries = event.data.carries;
        draft.view.decisionFacts = laterDecisionFacts(draft.view.decisionFacts, decisionFactsOf(written));
        if (event.data.delegation !== undefined) draft.view.delegation = event.data.delegation;
        return event.data.actionId;
      }
      case "action.leased": {
        const draft = this.#find(event, event.data.actionId);
        if (!draft) return undefined;
        this.#step(draft, event, { type: "action.leased", attempt: event.data.attempt });
        draft.view.attempts.push(attempt(event.data.attempt, event.data.attemptId, event.seq, event.data.deadlineAt, undefined));
        return event.data.actionId;
      }
      case "action.committed": {
        const draft = this.#find(event, event.data.actionId);
        if (!draft) return undefined;
        this.#step(draft, event, { type: "action.committed" });
        draft.view.result = resultView(event.data.result);
        draft.view.receipt = event.data.receipt;
        this.#settleAttempt(draft, event.data.attemptId, "committed", event.seq, undefined, event.data.result.timing.durationMs, event.data.receipt);
        return event.data.actionId;
      }
      case "action.uncertain": {
        const draft = this.#find(event, event.data.actionId);
        if (!draft) return undefined;
        this.#step(draft, event, { type: "action.uncertain" });
        this.#settleAttempt(draft, event.data.attemptId, "uncertain", event.seq, event.data.reason, undefined, undefined);
        return event.data.actionId;
      }
      case "action.failed": {
        const draft = this.#find(event, event.data.actionId);
        if (!draft) return undefined;
        this.#step(draft, event, { type: "action.failed", retryable: event.data.retryable });
        if (!event.data.retrying) draft.view.result = resultView(event.data.result);
        const detail = event.data.result.error ? `${event.data.result.error.code}: ${event.data.result.error.message}` : undefined;
        if (event.data.attemptId !== undefined || event.data.dispatched) {
          this.#settleAttempt(draft, event.data.attemptId, "failed", event.seq, detail, event.data.result.timing.durationMs, undefined);
        }
        return event.data.actionId;
      }
      case "action.reconciled": {
        const draft = this.#find(event, event.data.actionId);
        if (!draft) return undefined;
        this.#step(draft, event, { type: "action.reconciled", verdict: event.data.verdict });
        draft.view.reconciliations.push({ seq: event.seq, verdict: event.data.verdict, receipt: event.data.receipt });
        if (event.data.result) draft.view.result = resultView(event.data.result);
        if (event.data.receipt !== undefined) draft.view.receipt = event.data.receipt;
        return event.data.actionId;
      }
      case "approval.denied":
      case "approval.granted":
      case "approval.voided":
        return event.data.actionId;
      default:
        return undefined;
    }
  }

  /** Links a budget reservation of kind tool_attempt to its attempt. */
  reservation(actionId: string, attemptId: string | undefined, reservationId: string): void {
    const draft = this.#actions.get(actionId);
    const target = draft?.view.attempts.find((entry) => entry.attemptId === attemptId) ?? draft?.view.attempts.at(-1);
    if (target && target.reservationId === undefined) target.reservationId = reservationId;
  }

  views(): ActionView[] {
    return [...this.#actions.values()].map(({ view, status }) => ({ ...view, state: status?.state ?? "proposed" }));
  }

  #find(event: YokeEvent, actionId: string): ActionDraft | undefined {
    const draft = this.#actions.get(actionId);
    if (!draft) this.#problems.push({ seq: event.seq, message: `${event.type} for action ${actionId}, which was never proposed` });
    return draft;
  }

  #move(draft: ActionDraft, event: YokeEvent, input: ActionTransitionInput): ActionStatus | undefined {
    const result = transitionAction(draft.status, input);
    if (!result.ok) {
      this.#problems.push({ seq: event.seq, message: `action ${draft.view.actionId}: ${result.reason}` });
      return undefined;
    }
    draft.status = result.status;
    return result.status;
  }

  #step(draft: ActionDraft, event: YokeEvent, input: ActionTransitionInput): void {
    const status = this.#move(draft, event, input);
    if (!status) return;
    const step = { state: status.state, seq: event.seq, at: event.at, event: event.type, attempt: status.attempt };
    // A reconciliation names its verdict: the state it leaves (authorized again, committed) is not a second decision.
    draft.view.steps.push(input.type === "action.reconciled" ? { ...step, verdict: input.verdict } : step);
  }

  #settleAttempt(
    draft: ActionDraft,
    attemptId: string | undefined,
    outcome: "committed" | "uncertain" | "failed",
    seq: number,
    detail: string | undefined,
    durationMs: number | undefined,
    receipt: JsonValue | undefined,
  ): void {
    const target = (attemptId === undefined ? undefined : draft.view.attempts.find((entry) => entry.attemptId === attemptId)) ?? draft.view.attempts.at(-1);
    if (!target || target.outcome !== undefined) return;
    target.outcome = outcome;
    target.outcomeSeq = seq;
    target.detail = detail;
    target.durationMs = durationMs;
    target.receipt = receipt;
  }
}

function attempt(number: number, attemptId: string, leasedSeq: number, deadlineAt: number, executingSeq: number | undefined): MutableAttempt {
  return {
    attempt: number,
    attemptId,
    leasedSeq,
    deadlineAt,
    executingSeq,
    outcome: undefined,
    outcomeSeq: undefined,
    detail: undefined,
    durationMs: undefined,
    receipt: undefined,
    reservationId: undefined,
  };
}
