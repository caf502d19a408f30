import { YokeError } from "@yoke/protocol";
import type { RunContext } from "../run-context.js";
import type { Admission, ProposedCall } from "./participant.js";
import { HOOKS } from "./hooks.js";

/**
 * The first participant's decision on a proposed call, in list order: a parked call is the
 * person's (approvals), a new one policy admission's, which decides every new call. A call no
 * participant decides is a wiring fault (`INTERNAL`), never a silent admission.
 */
export async function admitProposed(context: RunContext, proposed: ProposedCall): Promise<Admission> {
  // Only participants with the hook are awaited: an await of nothing still costs a turn of the microtask queue.
  for (const admit of HOOKS.admit) {
    const admitted = await admit(context, proposed);
    if (admitted !== undefined) return admitted;
  }
  throw new YokeError("INTERNAL", `no participant admitted the call ${proposed.call.toolCallId}`);
}
