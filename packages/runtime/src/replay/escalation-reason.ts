import type { JournalEvent } from "@yoke/protocol";

/**
 * The reason a reconciler that could not tell gave for `actionId`: the run escalated on it,
 * and the record keeps the reason in that escalation (less the other actions named with it),
 * or, for a run that waited on it, in `run.waiting`. An action only named alongside another's
 * escalation had its reason dropped by the code: any reason replays the same.
 */
export function escalationReason(events: readonly JournalEvent[], from: number, actionId: string): string {
  for (const event of events.slice(from + 1)) {
    if (event.type === "run.waiting") return (event.data as { reason?: string }).reason ?? "";
    if (event.type !== "run.completed") continue;
    const outcome = (event.data as { outcome: { status: string; reason?: string; actionId?: string } }).outcome;
    if (outcome.status !== "escalated" || outcome.actionId !== actionId || outcome.reason === undefined) return "";
    return outcome.reason.replace(ALSO_UNCERTAIN, "");
  }
  return "";
}

// How an escalation names the other actions left uncertain with it (a list of action ids at the end).
const ALSO_UNCERTAIN = /; also left uncertain: [a-z]+_[0-9A-Za-z_-]+(, [a-z]+_[0-9A-Za-z_-]+)*$/;
