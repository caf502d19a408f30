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
  let settlements: Settlement[] | undefined;
  const hooks = HOOKS.settle;
  for (let index = 0; index < hooks.length; index++) {
    const settled = hooks[index]!(context, ended);
    if (settled !== undefined) (settlements ??= []).push(settled);
  }
  if (settlements === undefined) return NOTHING_SETTLED;
  const all = settlements;
  return { carry: (drafts) => all.reduce<YokeEventDraft[]>((carried, settlement) => settlement.carry(carried), [...drafts]) };
}

/** Most ended work settles nothing (a run without a budget): one shared settlement that carries the drafts as they are. */
const NOTHING_SETTLED: Settlement = Object.freeze({ carry: (drafts: readonly YokeEventDraft[]) => [...drafts] });
