import { type BudgetAmounts, type BudgetReservation, type CarriedSettlement, budgetEntriesOf, type YokeEvent } from "@yoke/protocol";
import type { ActionFolder } from "./inspect-actions.js";
import type { BudgetView, ModelCallView, ReservationView } from "./run-view.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function addAmounts(total: BudgetAmounts, amounts: BudgetAmounts): BudgetAmounts {
  const sum: Record<string, number> = { ...total } as Record<string, number>;
  for (const [name, amount] of Object.entries(amounts)) if (amount !== undefined) sum[name] = (sum[name] ?? 0) + amount;
  return sum as BudgetAmounts;
}

/**
 * Folds a run's budget steps (`budgetEntriesOf`: the `budget.*` events and the reservations and
 * settlements the work's own events carry): the run's limits and pricing, each reservation with
 * its attribution and settlement, and the spend charged to each model call (its reservation
 * rides on its `model.requested`, its settlement on its response).
 */
export class BudgetFolder {
  #opened: (YokeEvent & { type: "budget.opened" })["data"] | undefined;
  readonly #reservations = new Map<string, Mutable<ReservationView>>();
  readonly #calls = new Map<string, Mutable<ModelCallView>>();
  #charged: BudgetAmounts = {};
  #overshoots = 0;

  apply(event: YokeEvent, actions: ActionFolder, callsByTurnId: ReadonlyMap<string, Mutable<ModelCallView>[]>): void {
    if (event.type === "budget.opened") {
      this.#opened = event.data;
      return;
    }
    // Most steps ride on the work's own events (model.requested carries its call's reservation,
    // model.responded its settlement, …); budget.reserved / budget.settled hold the rest.
    for (const entry of budgetEntriesOf(event)) {
      if (entry.kind === "reserved") this.#reserve(entry.data, event.seq, actions, callsByTurnId);
      else this.#settle(entry.data, event.seq);
    }
  }

  #reserve(data: BudgetReservation, seq: number, actions: ActionFolder, callsByTurnId: ReadonlyMap<string, Mutable<ModelCallView>[]>): void {
    const { attribution } = data;
    this.#reservations.set(data.reservationId, {
      reservationId: data.reservationId,
      parentId: data.parentId,
      kind: attribution.kind,
      turnId: attribution.turnId,
      actionId: attribution.actionId,
      discarded: attribution.discarded === true,
      amounts: data.amounts,
      reservedSeq: seq,
      settled: undefined,
    });
    if (attribution.kind === "model_call" && attribution.turnId !== undefined) {
      // Discarded attempts (a retried call) are charged to the call they were made for.
      const call = callsByTurnId.get(attribution.turnId)?.at(-1);
      if (call) {
        this.#calls.set(data.reservationId, call);
        if (attribution.discarded !== true && call.reservationId === undefined) call.reservationId = data.reservationId;
      }
    }
    if (attribution.kind === "tool_attempt" && attribution.actionId !== undefined) {
      actions.reservation(attribution.actionId, attribution.attemptId, data.reservationId);
    }
  }

  #settle(data: CarriedSettlement, seq: number): void {
    const reservation = this.#reservations.get(data.reservationId);
    if (reservation) reservation.settled = { seq, charged: data.charged, overshoot: data.overshoot === true };
    this.#charged = addAmounts(this.#charged, data.charged);
    if (data.overshoot) this.#overshoots += 1;
    const call = this.#calls.get(data.reservationId);
    if (call && this.#opened?.pricing) call.cost = (call.cost ?? 0) + (data.charged.spend ?? 0);
  }

  view(): BudgetView | undefined {
    if (this.#opened === undefined) return undefined;
    const reservations = [...this.#reservations.values()];
    return {
      budgetId: this.#opened.budgetId,
      limits: this.#opened.limits,
      pricing: this.#opened.pricing,
      reservations,
      charged: this.#charged,
      open: reservations.filter((reservation) => reservation.settled === undefined).length,
      overshoots: this.#overshoots,
    };
  }
}
