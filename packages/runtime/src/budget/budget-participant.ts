import type { BudgetAmounts, CarriedSettlement, ModelResponse, RunState, YokeEventDraft } from "@yoke/protocol";
import type { DispatchItem } from "@yoke/scheduler";
import type { RunContext } from "../run-context.js";
import type { RequestStep, TurnParticipant } from "../turn/participant.js";
import { isExhaustion, type DispatchedTool, type Exhaustion, type SettledWork } from "./run-budget.js";

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

/** Each ended tool attempt's charge: a tool operation (when it was dispatched) and its share of the batch's wall time. */
export function settleAttemptRuns(
  context: RunContext,
  attempts: readonly { readonly attemptId: string; readonly dispatched: boolean }[],
): ReadonlyMap<string, SettledWork> {
  return context.budget.settleAttempts(attempts);
}

/** `drafts` with each settlement of `charges` carried on the draft that ends its work (else as `budget.settled`): a new array. */
export function carrySettlements(context: RunContext, drafts: readonly YokeEventDraft[], charges: ReadonlyMap<string, SettledWork>): YokeEventDraft[] {
  let result = [...drafts];
  for (const { entry, attribution } of charges.values()) result = context.budget.carry(result, entry, attribution);
  return result;
}

/** The reservations of attempts a recovery settled (`state` after it), settled with them as `budget.settled`. */
export function settleSupersededAttempts(context: RunContext, state: RunState): YokeEventDraft[] {
  return context.budget.settleSuperseded(state);
}

/** Every attempt still holding a reservation, charged as dispatched (`budget.settled`): the run ends with them. */
export function settleOpenAttemptRuns(context: RunContext): YokeEventDraft[] {
  return context.budget.settleOpenAttempts();
}

/** One leased attempt's dispatch reserved now, as `budget.reserved` drafts; an exhaustion when it does not fit. */
export function reserveAttemptRun(context: RunContext, item: DispatchItem, turnId: string | undefined): YokeEventDraft[] | Exhaustion {
  const reserved = context.budget.reserveAttempts([item], turnId);
  return isExhaustion(reserved) ? reserved : reserved.map((reservation) => context.budget.reservedDraft(reservation));
}

/**
 * Reserves, before they are dispatched, attempts leased off the response's transaction
 * (retries, approved calls, a resume's new attempts). With `drafts` (not added to a turn yet),
 * returns them with each reservation riding on its attempt's `action.executing`; without,
 * returns the reservations as `budget.reserved` drafts to journal in the same commit.
 * Attempts that do not fit together are left unreserved here: they are tried again one by
 * one at dispatch (`reserveAttemptRun`), and the ones that still do not fit are not dispatched.
 */
export function reserveAhead(context: RunContext, items: readonly DispatchItem[], drafts?: readonly YokeEventDraft[]): YokeEventDraft[] {
  let result: YokeEventDraft[] = drafts === undefined ? [] : drafts.slice();
  // A shortcut: reserveAttempts of no items reserves nothing.
  if (items.length === 0) return result;
  const turnId = context.accumulator.peek().currentTurnId;
  const reserved = context.budget.reserveAttempts(items, turnId);
  if (isExhaustion(reserved)) return result;
  for (const reservation of reserved) {
    if (drafts === undefined) result.push(context.budget.reservedDraft(reservation));
    else result = context.budget.carry(result, { kind: "reserved", data: reservation });
  }
  return result;
}

/** The model call was answered: its settlement, carried on `model.responded`. */
export function settleAnsweredModelCall(context: RunContext, response: ModelResponse): CarriedSettlement | undefined {
  const settled = context.budget.settleModelCall(response);
  return settled === undefined ? undefined : context.budget.carriedSettlement(settled);
}

/** A model call attempt failed and another follows: the failed attempt charged as discarded work, journaled with its `model.failed`. */
export function discardFailedAttempt(context: RunContext, failure: { attempt: number; code: string }): YokeEventDraft[] {
  return context.budget.retryModelCall(failure);
}

/** Whether a response's dispatches fit, before any of its calls is admitted: a batch runs whole or not at all. */
export function admitDispatches(context: RunContext, tools: readonly DispatchedTool[]): Exhaustion | undefined {
  return context.budget.admitDispatches(tools);
}

/** `drafts` with each admitted attempt's reservation carried on its `action.admitted` (a new array); an exhaustion when they do not fit. */
export function reserveAdmitted(
  context: RunContext,
  drafts: readonly YokeEventDraft[],
  items: readonly DispatchItem[],
  turnId: string,
): YokeEventDraft[] | Exhaustion {
  const reserved = context.budget.reserveAttempts(items, turnId);
  if (isExhaustion(reserved)) return reserved;
  let result = [...drafts];
  for (const reservation of reserved) result = context.budget.carry(result, { kind: "reserved", data: reservation });
  return result;
}
