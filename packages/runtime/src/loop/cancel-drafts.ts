import type { ModelResponse, Outcome, RunState, YokeEventDraft } from "@yoke/protocol";
import type { InterruptRequest } from "../loop-control.js";
import { landed } from "../interrupts.js";
import type { RunContext } from "../run-context.js";
import { settleWork } from "../turn/settle.js";
import { runCompleted } from "./run-completed.js";

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
  const cut =
    state.phase === "awaiting_response" && turnId !== null
      ? settleWork(context, { kind: "cut_model_call", turnId, dropped: aborted?.dropped }).carry(drafts)
      : drafts;
  // A verifier a crash cut short, its reservation still open: it ran, so its time is charged, not abandoned.
  const settled = settleWork(context, { kind: "cut_verifier_run" }).carry(cut);
  if ("interrupt" in cancellation) settled.push(landed(context, cancellation.interrupt, turnId));
  settled.push(runCompleted(context, state, outcome));
  return settled;
}
