import { newId, type JsonValue, type Outcome, type RunState, type YokeEventDraft } from "@yoke/protocol";
import { requestDrafts } from "../request-builder.js";
import { preview, type RunContext } from "../run-context.js";
import { truncationDrafts } from "./output-limit.js";
import { offerTurn } from "../tool-admission.js";
import { landInputDrafts, landed, pendingCancel } from "../interrupts.js";
import { loopDrafts } from "../loop-detection.js";

/**
 * What moves a run in phase `ready` on: `run.completed` when it was cancelled or has used
 * its turns, else the next `turn.started` and its `model.requested`. When the last response
 * also had a call the output limit cut, its note comes first (`truncationDrafts`), or the run
 * ends when too many responses in a row were cut. A run with pinned tools journals in
 * `turn.started.offered` the tools discovery offers the turn; its requests offer exactly those. `state` may be a
 * preview, so the drafts can share a transaction with the events that led to it.
 */
export function nextTurnDrafts(context: RunContext, state: RunState): YokeEventDraft[] {
  if (context.signal?.aborted) return [runCompleted(context, state, cancelledOutcome(context.signal))];
  const cancel = pendingCancel(context);
  if (cancel !== undefined) {
    return [landed(context, cancel, state.currentTurnId ?? null), runCompleted(context, state, { status: "cancelled", reason: cancel.text })];
  }
  // A response that also had complete calls: they have their results; now the cut ones.
  const truncation = truncationDrafts(context, state);
  if (truncation.kind === "end") return [runCompleted(context, state, truncation.outcome)];
  const loop = loopDrafts(context, state);
  // Steering did not break the loop: a person decides (the run waits, no new turn).
  if (loop?.kind === "escalate") return [...(truncation.kind === "note" ? [truncation.draft] : []), ...loop.drafts];
  if (state.turns >= state.maxTurns) {
    return [runCompleted(context, state, { status: "budget_exhausted", budget: "turns", limit: state.maxTurns })];
  }
  const notes = truncation.kind === "note" ? [truncation.draft] : [];
  if (loop !== undefined) notes.push(...loop.drafts);
  // Interrupts land here, between turns: after every result of the last batch, before the next request.
  notes.push(...landInputDrafts(context, state.currentTurnId ?? null));
  // A shortcut: a preview of no drafts is the state itself (its mutant, always previewing, is equivalent).
  const current = notes.length === 0 ? state : preview(context, notes, state.length);
  const turnId = newId(context.deps.ids, "turn");
  // A run with pinned tools offers the turn what discovery gives now, frozen for the turn.
  const offered = offerTurn(context, current);
  return [
    ...notes,
    {
      type: "turn.started",
      at: context.deps.clock.now(),
      causationId: turnId,
      data: { turnId, index: current.turns + 1, ...(offered === undefined ? {} : { offered: { digest: offered.digest, tools: offered.tools.slice() } }) },
    },
    ...requestDrafts(context, current, turnId, offered),
  ];
}

/** `run.completed` with `outcome`; `output` is the structured output that passed the run's schema, when one was asked for. */
export function runCompleted(context: RunContext, state: RunState, outcome: Outcome, output?: JsonValue): YokeEventDraft {
  return {
    type: "run.completed",
    at: context.deps.clock.now(),
    causationId: state.currentTurnId ?? null,
    data: { outcome, turns: state.turns, ...(output === undefined ? {} : { output }) },
  };
}

export function cancelledOutcome(signal: AbortSignal): Outcome {
  const reason: unknown = signal.reason;
  const text = typeof reason === "string" ? reason : reason instanceof Error && reason.message ? reason.message : "cancelled by the caller";
  return { status: "cancelled", reason: text };
}
