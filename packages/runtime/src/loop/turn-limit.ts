import type { TurnParticipant } from "../turn/participant.js";
import { runCompleted } from "./run-completed.js";

/** A run that has used its turns ends `budget_exhausted` at the boundary instead of starting another. */
export const turnLimit: TurnParticipant = {
  name: "turn limit",
  boundary: (context, state) =>
    state.turns >= state.maxTurns ? { end: [runCompleted(context, state, { status: "budget_exhausted", budget: "turns", limit: state.maxTurns })] } : undefined,
};
