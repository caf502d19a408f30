import type { BudgetAmounts, CarriedSettlement, ModelResponse, YokeEventDraft } from "@yoke/protocol";
import type { RunContext } from "../run-context.js";
import type { RequestStep, TurnParticipant } from "../turn/participant.js";
import { isExhaustion } from "./run-budget.js";

/**
 * The run's budget as a participant: each model call's worst case is reserved before it is
 * requested and carried on its `model.requested` (`reserved`: the compiled input tokens, the
 * output reserve, their price, a turn when it starts one); a call that does not fit ends the
 * run `budget_exhausted` instead.
 */
export const runBudget: TurnParticipant = {
  name: "run budget",
  beforeRequest: (context, { turnId, inputTokens, outputReserve, startsTurn }) => {
    const reserved = context.budget.reserveModelCall(turnId, { inputTokens, outputReserve }, startsTurn);
    if (reserved === undefined) return undefined;
    if (isExhaustion(reserved)) {
      context.logger.info(
        { turnId, budget: reserved.budget, limit: reserved.limit, reservationId: reserved.reservationId },
        "model call does not fit the budget",
      );
      return { refused: reserved };
    }
    return { reserved: context.budget.carriedReservation(reserved, "model.requested", { turnId }) };
  },
};

/**
 * A verifier run's worst case (`declared`, and the wall time it may take), held before it
 * starts and carried on its `verifier.started`; a run that does not fit ends the run
 * `budget_exhausted` instead of starting.
 */
export function reserveVerifierRun(context: RunContext, turnId: string, verifierRunId: string, declared: BudgetAmounts | undefined): RequestStep | undefined {
  const reserved = context.budget.reserveVerifier(turnId, verifierRunId, declared);
  if (reserved === undefined) return undefined;
  if (isExhaustion(reserved)) return { refused: reserved };
  return { reserved: context.budget.carriedReservation(reserved, "verifier.started", { turnId, verifierRunId }) };
}

/** The verifier run that just finished, charged its wall time (the injected clock's): carried on its `verifier.finished`. */
export function settleVerifierRun(context: RunContext): CarriedSettlement | undefined {
  const settled = context.budget.settleVerifier();
  return settled === undefined ? undefined : context.budget.carriedSettlement(settled);
}

/** A verifier run a crash cut short, its reservation still open: it ran, so its time is charged (`budget.settled`), not abandoned. */
export function settleCutVerifierRun(context: RunContext): YokeEventDraft[] {
  const settled = context.budget.settleOpenVerifier();
  return settled === undefined ? [] : [settled];
}

/**
 * Settles the model call's reservation a cancellation leaves open, as `budget.settled`: to
 * the answer's usage when one came (and was dropped), else to everything it held (a cut call
 * reports no usage, and unknown is never charged as zero), and the wall time it took.
 * Nothing for a run without a budget, or when no model call holds a reservation.
 */
export function settleCutModelCall(context: RunContext, turnId: string, dropped: ModelResponse | undefined): YokeEventDraft[] {
  const settled = dropped === undefined ? context.budget.settleCutModelCall() : context.budget.settleModelCall(dropped);
  if (settled === undefined) return [];
  return [context.budget.settledDraft(settled, { kind: "model_call", runId: context.scope.runId, turnId })];
}
