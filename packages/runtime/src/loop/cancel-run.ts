import type { ModelResponse, Outcome, RunState, YokeEventDraft } from "@yoke/protocol";
import type { InterruptRequest } from "../loop-control.js";
import { settleCutModelCall, settleCutVerifierRun } from "../budget/budget-participant.js";
import { landed } from "../interrupts.js";
import type { RunContext } from "../run-context.js";
import type { TurnParticipant } from "../turn/participant.js";
import { cancelledOutcome, runCompleted } from "./run-completed.js";

/** Why a run is cancelled: the caller's signal (its outcome), or a cancel from the run's inbox (landed with it). */
export type Cancellation = { readonly outcome: Outcome } | { readonly interrupt: InterruptRequest };

/** A model call the cancellation cut short in this process: its attempt, and the answer it dropped when one came as it was cancelled. */
export interface AbortedCall {
  readonly attempt: number;
  readonly dropped?: ModelResponse;
}

/**
 * What ends a run cancelled, in one append: the model call cut short (`model.failed` CANCELLED,
 * when `aborted`), the settlement of the model call's reservation when one is open (phase
 * `awaiting_response`: a call cut here, or one a crash cut before a resume) and of a verifier
 * run a crash cut short, the cancel's
 * `interrupt.landed` when it came from the inbox, and `run.completed` `cancelled`.
 */
export function cancelDrafts(context: RunContext, state: RunState, cancellation: Cancellation, aborted?: AbortedCall): YokeEventDraft[] {
  const outcome: Outcome = "outcome" in cancellation ? cancellation.outcome : { status: "cancelled", reason: cancellation.interrupt.text };
  const reason = outcome.status === "cancelled" ? outcome.reason : outcome.status;
  const turnId = state.currentTurnId ?? null;
  const drafts: YokeEventDraft[] = [];
  if (aborted !== undefined && turnId !== null) {
    drafts.push({
      type: "model.failed",
      at: context.deps.clock.now(),
      causationId: turnId,
      data: {
        turnId,
        attempt: aborted.attempt,
        code: "CANCELLED",
        message:
          aborted.dropped === undefined
            ? `the model call was cancelled: ${reason}`
            : `the run was cancelled as the model answered; its answer was dropped: ${reason}`,
        retryable: false,
        retrying: false,
      },
    });
  }
  // The phase test is a guard, not a case: a model call's reservation is open only in phase awaiting_response,
  // and settling none journals nothing.
  if (state.phase === "awaiting_response" && turnId !== null) drafts.push(...settleCutModelCall(context, turnId, aborted?.dropped));
  // A verifier a crash cut short, its reservation still open: it ran, so its time is charged, not abandoned.
  drafts.push(...settleCutVerifierRun(context));
  if ("interrupt" in cancellation) drafts.push(landed(context, cancellation.interrupt, turnId));
  drafts.push(runCompleted(context, state, outcome));
  return drafts;
}

/** The caller's signal, aborted: the run ends `cancelled` at the turn boundary, before anything else is asked. */
export const callerCancel: TurnParticipant = {
  name: "caller cancel",
  boundary: (context, state) => (context.signal?.aborted ? { end: [runCompleted(context, state, cancelledOutcome(context.signal))] } : undefined),
};
