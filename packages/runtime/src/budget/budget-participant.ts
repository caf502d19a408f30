import type { TurnParticipant } from "../turn/participant.js";
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
