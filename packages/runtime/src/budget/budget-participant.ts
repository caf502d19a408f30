import type { BudgetAmounts, CarriedSettlement, ModelResponse, YokeEventDraft } from "@yoke/protocol";
import type { DispatchItem } from "@yoke/scheduler";
import type { RunContext } from "../run-context.js";
import type { EndedWork, RequestStep, Settlement, TurnParticipant } from "../turn/participant.js";
import { isExhaustion, type DispatchedTool, type Exhaustion } from "./run-budget.js";

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
        {
          turnId,
          budget: reserved.budget,
          limit: reserved.limit,
          requested: reserved.requested,
          remaining: reserved.remaining,
          reservationId: reserved.reservationId,
        },
        "model call does not fit the budget",
      );
      return { refused: reserved };
    }
    return { reserved: context.budget.carriedReservation(reserved, "model.requested", { turnId }) };
  },
  settle: (context, ended) => settleEnded(context, ended),
};

/** Drafts that ride after the ones they settle, as events of their own (`budget.settled`, a discarded attempt's pair). */
const after = (settled: readonly YokeEventDraft[]): Settlement | undefined =>
  settled.length === 0 ? undefined : { carry: (drafts) => [...drafts, ...settled] };

/**
 * The budget's settlement of work that ended: each ended tool attempt charged a tool operation
 * (when it was dispatched) and its share of the batch's wall time, on the draft that ends it;
 * attempts a recovery superseded, or still open as the run ends, charged as dispatched; a
 * failed model call attempt charged as discarded work; a model call a cancellation cut short
 * settled to the answer's usage when one came (and was dropped), else to everything it held (a
 * cut call reports no usage, and unknown is never charged as zero); a verifier run a crash cut
 * short charged its time (it ran). Nothing for a run without a budget.
 */
function settleEnded(context: RunContext, ended: EndedWork): Settlement | undefined {
  const { budget } = context;
  switch (ended.kind) {
    case "tool_attempts": {
      const charges = budget.settleAttempts(ended.attempts);
      if (charges.size === 0) return undefined;
      return {
        carry: (drafts) => {
          let result = [...drafts];
          for (const { entry, attribution } of charges.values()) result = budget.carry(result, entry, attribution);
          return result;
        },
      };
    }
    case "superseded_attempts":
      return after(budget.settleSuperseded(ended.state));
    case "open_attempts":
      return after(budget.settleOpenAttempts());
    case "failed_model_attempt":
      return after(budget.retryModelCall(ended.failure));
    case "cut_model_call": {
      const settled = ended.dropped === undefined ? budget.settleCutModelCall() : budget.settleModelCall(ended.dropped);
      if (settled === undefined) return undefined;
      return after([budget.settledDraft(settled, { kind: "model_call", runId: context.scope.runId, turnId: ended.turnId })]);
    }
    case "cut_verifier_run": {
      const settled = budget.settleOpenVerifier();
      return settled === undefined ? undefined : after([settled]);
    }
  }
}

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
