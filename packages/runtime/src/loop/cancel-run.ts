import type { TurnParticipant } from "../turn/participant.js";
import { cancelledOutcome, runCompleted } from "./run-completed.js";

/** The caller's signal, aborted: the run ends `cancelled` at the turn boundary, before anything else is asked. */
export const callerCancel: TurnParticipant = {
  name: "caller cancel",
  boundary: (context, state) => (context.signal?.aborted ? { end: [runCompleted(context, state, cancelledOutcome(context.signal))] } : undefined),
};
