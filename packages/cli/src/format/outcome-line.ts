import type { Outcome } from "@yoke/protocol";

/**
 * A run's outcome in one phrase: its status, the reason where it has one, and for a budget
 * that ended it, the dimension, what the refused reservation asked for and what was left of
 * the limit, so a reader sees why without reading the events.
 *
 * @example
 * ```ts
 * outcomeText({ status: "budget_exhausted", budget: "tokens", limit: 20_000, requested: 33_117, remaining: 20_000, reservationId: "reservation_1" });
 * // "budget_exhausted: tokens limit 20000, reservation reservation_1 asked 33117 with 20000 left"
 * ```
 */
export function outcomeText(outcome: Outcome, clip: (text: string) => string = (text) => text): string {
  if (outcome.status === "budget_exhausted") {
    const limit = `${outcome.status}: ${outcome.budget} limit ${outcome.limit}`;
    if (outcome.requested === undefined) return outcome.reservationId === undefined ? limit : `${limit} (reservation ${outcome.reservationId})`;
    const who = outcome.reservationId === undefined ? "a reservation" : `reservation ${outcome.reservationId}`;
    return `${limit}, ${who} asked ${outcome.requested}${outcome.remaining === undefined ? "" : ` with ${outcome.remaining} left`}`;
  }
  return "reason" in outcome ? `${outcome.status}: ${clip(outcome.reason)}` : outcome.status;
}
