import { newId, type Outcome, type RunState, type YokeEventDraft } from "@yoke/protocol";
import { requestDrafts } from "../request-builder.js";
import type { RunContext } from "../run-context.js";

/**
 * What moves a run in phase `ready` on: `run.completed` when it was cancelled or has used
 * its turns, else the next `turn.started` and its `model.requested`. `state` may be a
 * preview, so the drafts can share a transaction with the events that led to it.
 */
export function nextTurnDrafts(context: RunContext, state: RunState): YokeEventDraft[] {
  if (context.signal?.aborted) return [runCompleted(context, state, cancelledOutcome(context.signal))];
  if (state.turns >= state.maxTurns) {
    return [runCompleted(context, state, { status: "budget_exhausted", budget: "turns", limit: state.maxTurns })];
  }
  const turnId = newId(context.deps.ids, "turn");
  return [
    { type: "turn.started", at: context.deps.clock.now(), causationId: turnId, data: { turnId, index: state.turns + 1 } },
    ...requestDrafts(context, state, turnId),
  ];
}

export function runCompleted(context: RunContext, state: RunState, outcome: Outcome): YokeEventDraft {
  return {
    type: "run.completed",
    at: context.deps.clock.now(),
    causationId: state.currentTurnId ?? null,
    data: { outcome, turns: state.turns },
  };
}

export function cancelledOutcome(signal: AbortSignal): Outcome {
  const reason: unknown = signal.reason;
  const text = typeof reason === "string" ? reason : reason instanceof Error && reason.message ? reason.message : "cancelled by the caller";
  return { status: "cancelled", reason: text };
}
