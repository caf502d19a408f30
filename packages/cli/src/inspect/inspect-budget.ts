import type { BudgetAmounts, YokeEvent } from "@yoke/protocol";
import type { ActionFolder } from "./inspect-actions.js";
import type { BudgetView, ModelCallView, ReservationView } from "./run-view.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function addAmounts(total: BudgetAmounts, amounts: BudgetAmounts): BudgetAmounts {
  const sum: Record<string, number> = { ...total } as Record<string, number>;
  for (const [name, amount] of Object.entries(amounts)) if (amount !== undefined) sum[name] = (sum[name] ?? 0) + amount;
  return sum as BudgetAmounts;
}

/**
 * Folds `budget.*` events: the run's limits and pricing, each reservation with its
 * attribution and settlement, and the spend charged to each model call (the runtime
 * reserves a model call right after its `model.requested` and settles it with its response).
 */
export class BudgetFolder {
  #opened: (YokeEvent & { type: "budget.opened" })["data"] | undefined;
  readonly #reservations = new Map<string, Mutable<ReservationView>>();
  readonly #calls = new Map<string, Mutable<ModelCallView>>();
  #charged: BudgetAmounts = {};
  #overshoots = 0;

  apply(event: YokeEvent, actions: ActionFolder, callsByTurnId: ReadonlyMap<string, Mutable<ModelCallView>[]>): void {
    switch (event.type) {
      case "budget.opened":
        this.#opened = event.data;
        return;
      case "budget.reserved": {
        const { attribution } = event.data;
        this.#reservations.set(event.data.reservationId, {
          reservationId: event.data.reservationId,
          parentId: event.data.parentId,
          kind: attribution.kind,
          turnId: attribution.turnId,
          actionId: attribution.actionId,
          discarded: attribution.discarded === true,
          amounts: event.data.amounts,
          reservedSeq: event.seq,
          settled: undefined,
        });
        if (attribution.kind === "model_call" && attribution.turnId !== undefined) {
          // Discarded attempts (a retried call) are charged to the call they were made for.
          const call = callsByTurnId.get(attribution.turnId)?.at(-1);
          if (call) {
            this.#calls.set(event.data.reservationId, call);
            if (attribution.discarded !== true && call.reservationId === undefined) call.reservationId = event.data.reservationId;
          }
        }
        if (attribution.kind === "tool_attempt" && attribution.actionId !== undefined) {
          actions.reservation(attribution.actionId, attribution.attemptId, event.data.reservationId);
        }
        return;
      }
      case "budget.settled": {
        const reservation = this.#reservations.get(event.data.reservationId);
        if (reservation) reservation.settled = { seq: event.seq, charged: event.data.charged, overshoot: event.data.overshoot === true };
        this.#charged = addAmounts(this.#charged, event.data.charged);
        if (event.data.overshoot) this.#overshoots += 1;
        const call = this.#calls.get(event.data.reservationId);
        if (call && this.#opened?.pricing) call.cost = (call.cost ?? 0) + (event.data.charged.spend ?? 0);
        return;
      }
      default:
        return;
    }
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
