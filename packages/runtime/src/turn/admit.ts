import { YokeError } from "@yoke/protocol";
import type { RunContext } from "../run-context.js";
import type { Admission, ProposedCall } from "./participant.js";
import { TURN_PARTICIPANTS } from "./participants.js";

/**
 * The first participant's decision on a proposed call, in list order: a parked call is the
 * person's (approvals), a new one policy admission's, which decides every new call. A call no
 * participant decides is a wiring fault (`INTERNAL`), never a silent admission.
 */
export async function admitProposed(context: RunContext, proposed: ProposedCall): Promise<Admission> {
  for (const participant of TURN_PARTICIPANTS) {
    // Only a participant with the hook is awaited: an await of nothing still costs a turn of the microtask queue.
    if (participant.admit === undefined) continue;
    const admitted = await participant.admit(context, proposed);
    if (admitted !== undefined) return admitted;
  }
  throw new YokeError("INTERNAL", `no participant admitted the call ${proposed.call.toolCallId}`);
}
