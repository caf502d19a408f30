import type { BudgetReservation, BudgetSettlement } from "./budget.js";
import type { YokeEvent } from "./events.js";

/** One budget step an event journals: a reservation, or a settlement. */
export type BudgetEntry = { readonly kind: "reserved"; readonly data: BudgetReservation } | { readonly kind: "settled"; readonly data: BudgetSettlement };

/**
 * The budget steps an event journals, in fold order: a `budget.reserved` / `budget.settled`
 * itself, or the `reserved` / `settled` an event that starts or ends the work carries
 * (`model.requested` … `verifier.finished`). Every other event: none. Read a run's charges
 * through this, never by event type alone: most charges ride on the work's own events.
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
      return event.data.reserved === undefined ? NONE : [{ kind: "reserved", data: event.data.reserved }];
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
