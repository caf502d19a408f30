import type { BudgetReservation, BudgetSettlement, CarriedReservation, CarriedSettlement, ChargeAttribution } from "./budget.js";
import type { YokeEvent } from "./events.js";

/**
 * One budget step an event journals: a reservation (whole, whichever form it was journaled in),
 * or a settlement (`released` absent when its carrier left it out: what the reservation held
 * less `charged`; a ledger works it out).
 */
export type BudgetEntry = { readonly kind: "reserved"; readonly data: BudgetReservation } | { readonly kind: "settled"; readonly data: CarriedSettlement };

/**
 * The budget steps an event journals, in fold order: a `budget.reserved` / `budget.settled`
 * itself, or the `reserved` / `settled` an event that starts or ends the work carries
 * (`model.requested` … `verifier.finished`). Every other event: none. Read a run's charges
 * through this, never by event type alone: most charges ride on the work's own events, and a
 * carried reservation's attribution leaves out the ids its carrier holds (given back here).
 *
 * @example
 * ```ts
 * let toolOps = 0;
 * for (const event of events) for (const entry of budgetEntriesOf(event)) if (entry.kind === "settled") toolOps += entry.data.charged.tool_ops ?? 0;
 * ```
 */
export function budgetEntriesOf(event: YokeEvent): readonly BudgetEntry[] {
  switch (event.type) {
    case "budget.reserved":
      return [{ kind: "reserved", data: event.data }];
    case "budget.settled":
      return [{ kind: "settled", data: event.data }];
    case "model.requested":
    case "action.admitted":
    case "action.executing":
    case "verifier.started":
      return event.data.reserved === undefined
        ? NONE
        : [{ kind: "reserved", data: wholeReservation(event.data.reserved, event.runId, event.data, CARRIED_KIND[event.type]) }];
    case "model.responded":
    case "action.committed":
    case "action.failed":
    case "action.uncertain":
    case "verifier.finished":
      return event.data.settled === undefined ? NONE : [{ kind: "settled", data: event.data.settled }];
    default:
      return NONE;
  }
}

const NONE: readonly BudgetEntry[] = Object.freeze([]);

/** The ids a carrier may hold for its reservation's attribution (besides the run, which every event holds). */
const CARRIER_IDS = ["actionId", "attemptId", "turnId", "verifierRunId"] as const;
/** ChargeAttribution's members in code-unit order (canonical JSON's). */
const ATTRIBUTION_ORDER = ["actionId", "attemptId", "childRunId", "discarded", "kind", "note", "runId", "turnId", "verifierRunId"] as const;

type CarrierData = { readonly [K in (typeof CARRIER_IDS)[number]]?: unknown };

/** The events that carry a reservation, and the kind of work each starts: an attribution of that kind alone is left out. */
const CARRIED_KIND = {
  "model.requested": "model_call",
  "action.admitted": "tool_attempt",
  "action.executing": "tool_attempt",
  "verifier.started": "verifier",
} as const satisfies Record<string, ChargeAttribution["kind"]>;

/** An event that carries the reservation of the work it starts. */
export type ReservationCarrier = keyof typeof CARRIED_KIND;

/**
 * A reservation as the event that starts its work carries it (docs/decisions/0016): the
 * attribution without its run and without the ids the carrier holds with the same value
 * (`carrier`: the event's run and data), and no attribution at all when what is left is
 * `{ kind }` of the work the carrier's `type` starts (given `type`). Whole (`reservation`
 * itself) when that could not be read back exactly: an attribution of another run, one that
 * differs from the carrier's id, or one that lacks an id the carrier has. `budgetEntriesOf` on
 * the carrier gives back `reservation`.
 *
 * @example
 * ```ts
 * const draft = { type: "model.requested", data: { turnId, requestHash, messageCount, reserved: compactReservation(reserved, { type: "model.requested", runId, data: { turnId } }) } };
 * ```
 */
export function compactReservation(
  reservation: BudgetReservation,
  carrier: { readonly type?: ReservationCarrier; readonly runId: string; readonly data: CarrierData },
): CarriedReservation {
  const attribution = reservation.attribution;
  if (attribution.runId !== carrier.runId) return reservation;
  // Written out member by member (one per model call and dispatch): an id the carrier holds is left
  // out when the attribution has the same; an attribution lacking it, or with another, stays whole.
  const { actionId, attemptId, turnId, verifierRunId } = carrier.data;
  if (
    (actionId !== undefined && attribution.actionId !== actionId) ||
    (attemptId !== undefined && attribution.attemptId !== attemptId) ||
    (turnId !== undefined && attribution.turnId !== turnId) ||
    (verifierRunId !== undefined && attribution.verifierRunId !== verifierRunId)
  )
    return reservation;
  // Nothing left but the kind the carrier implies: no attribution (the common case, one per model call and dispatch).
  if (
    carrier.type !== undefined &&
    attribution.kind === CARRIED_KIND[carrier.type] &&
    (actionId !== undefined || attribution.actionId === undefined) &&
    (attemptId !== undefined || attribution.attemptId === undefined) &&
    (turnId !== undefined || attribution.turnId === undefined) &&
    (verifierRunId !== undefined || attribution.verifierRunId === undefined) &&
    attribution.childRunId === undefined &&
    attribution.discarded === undefined &&
    attribution.note === undefined
  )
    return { amounts: reservation.amounts, parentId: reservation.parentId, reservationId: reservation.reservationId };
  // Members in code-unit order (canonical JSON's, ATTRIBUTION_ORDER).
  const left: Record<string, unknown> = {};
  if (actionId === undefined && attribution.actionId !== undefined) left.actionId = attribution.actionId;
  if (attemptId === undefined && attribution.attemptId !== undefined) left.attemptId = attribution.attemptId;
  if (attribution.childRunId !== undefined) left.childRunId = attribution.childRunId;
  if (attribution.discarded !== undefined) left.discarded = attribution.discarded;
  left.kind = attribution.kind;
  if (attribution.note !== undefined) left.note = attribution.note;
  if (turnId === undefined && attribution.turnId !== undefined) left.turnId = attribution.turnId;
  if (verifierRunId === undefined && attribution.verifierRunId !== undefined) left.verifierRunId = attribution.verifierRunId;
  return {
    amounts: reservation.amounts,
    attribution: left as CarriedReservation["attribution"],
    parentId: reservation.parentId,
    reservationId: reservation.reservationId,
  };
}

/** A settlement as the event that ends its work carries it: without `released` (what the reservation held less `charged`). */
export function compactSettlement(settlement: BudgetSettlement): CarriedSettlement {
  // Written out (not a rest copy): one per dispatch and model call, members in code-unit order.
  return settlement.overshoot === undefined
    ? { charged: settlement.charged, reservationId: settlement.reservationId }
    : { charged: settlement.charged, overshoot: settlement.overshoot, reservationId: settlement.reservationId };
}

/**
 * The whole reservation a carrier journaled: a carried attribution (no `runId`) gets back the
 * run and the carrier's ids; none at all is `{ kind }` of the work the carrier starts.
 */
function wholeReservation(reserved: CarriedReservation, runId: string, data: CarrierData, kind: ChargeAttribution["kind"]): BudgetReservation {
  const carried = reserved.attribution ?? { kind };
  if (carried.runId !== undefined) return reserved as BudgetReservation;
  const whole: Record<string, unknown> = {};
  for (const key of ATTRIBUTION_ORDER) {
    const value =
      key === "runId"
        ? runId
        : (carried[key] ?? (key === "actionId" || key === "attemptId" || key === "turnId" || key === "verifierRunId" ? data[key] : undefined));
    if (value !== undefined) whole[key] = value;
  }
  return { amounts: reserved.amounts, attribution: whole as ChargeAttribution, parentId: reserved.parentId, reservationId: reserved.reservationId };
}
