import { YokeError } from "@yoke/protocol";
import type { RunContext } from "../run-context.js";
import type { Admission, ProposedCall } from "./participant.js";
import { HOOKS } from "./hooks.js";

/**
 * The first participant's decision on a proposed call, in list order: a parked call is the
 * person's (approvals), a new one policy admission's, which decides every new call. A call no
 * participant decides is a wiring fault (`INTERNAL`), never a silent admission.
 */
export function admitProposed(context: RunContext, proposed: ProposedCall): Promise<Admission> {
  // A participant passes a call on at once (undefined), so no promise is made or awaited for it: a proposed call costs
  // the loop one promise, the deciding participant's, however many participants the list holds.
  const hooks = HOOKS.admit;
  for (let index = 0; index < hooks.length; index++) {
    const admitted = hooks[index]!(context, proposed);
    if (admitted !== undefined) return admitted;
  }
  return Promise.reject(new YokeError("INTERNAL", `no participant admitted the call ${proposed.call.toolCallId}`));
}
