import { admitCall } from "./policy-admission.js";
import type { TurnParticipant } from "./turn/participant.js";

/**
 * Policy admission as a participant: it decides every new call. Without an engine the
 * call is admitted (rule `default`); with one, its decision admits it, refuses it
 * (`tool.rejected` POLICY_DENIED) or parks it for a person (`action.approval_requested`).
 */
export const policyAdmission: TurnParticipant = {
  name: "policy admission",
  admit: (context, proposed) => {
    // A call parked for approval is the person's to decide (the approvals participant).
    if (proposed.parked !== undefined) return undefined;
    const { state, batch, turnId, call, accepted, blockers } = proposed;
    return admitCall(context, state, batch, turnId, call, accepted, blockers);
  },
};
