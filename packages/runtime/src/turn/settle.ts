import type { YokeEventDraft } from "@yoke/protocol";
import type { RunContext } from "../run-context.js";
import type { EndedWork, Settlement } from "./participant.js";
import { HOOKS } from "./hooks.js";

/**
 * What every participant settles for `ended`, asked now, in list order (each decides when the
 * work ended: a charge of wall time is taken at this clock time); the settlements ride on the
 * drafts given to `carry`, each participant's after the ones before it.
 */
export function settleWork(context: RunContext, ended: EndedWork): Settlement {
  const settlements: Settlement[] = [];
  for (const settle of HOOKS.settle) {
    const settled = settle(context, ended);
    if (settled !== undefined) settlements.push(settled);
  }
  return { carry: (drafts) => settlements.reduce<YokeEventDraft[]>((carried, settlement) => settlement.carry(carried), [...drafts]) };
}
