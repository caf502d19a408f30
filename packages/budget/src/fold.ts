import { budgetEntriesOf, type BudgetAmounts, type PricingTable, type YokeEvent } from "@yoke/protocol";
import { invalid } from "./amounts.js";
import { createBudgetLedger } from "./ledger.js";
import type { BudgetLedger, OpenedData } from "./ledger-types.js";
import { pricingRevisionOf } from "./pricing.js";

/**
 * Rebuilds a run's ledger from its journal: the first `budget.opened` creates it, then every
 * reservation and settlement is applied in order, whether journaled as `budget.reserved` /
 * `budget.settled` or carried by the work's own event (`reserved` on `model.requested`,
 * `action.admitted`, …; `settled` on `model.responded`, `action.committed`, …: see
 * `budgetEntriesOf`). Other events are ignored.
 * Returns undefined for a run that opened no budget. An event that contradicts the ledger
 * throws BUDGET_INVALID.
 *
 * @example
 * ```ts
 * const ledger = foldBudget(await journal.read(scope));
 * ledger?.openReservations(); // in-flight work a crash left open: settle or release it on resume
 * ```
 */
export function foldBudget(events: Iterable<YokeEvent>): BudgetLedger | undefined {
  let ledger: BudgetLedger | undefined;
  for (const event of events) {
    if (ledger === undefined) {
      if (event.type === "budget.opened") ledger = createBudgetLedger({ budgetId: event.data.budgetId, limits: event.data.limits });
      else if (budgetEntriesOf(event).length > 0) throw invalid(`${event.type} carries a budget step before budget.opened`, { seq: event.seq });
      continue;
    }
    ledger.apply(event);
  }
  return ledger;
}

/** What `openedData` takes: the budget, and optionally the pricing table (or its id/revision/currency) and a child run's parent. */
export interface OpenedDataOptions {
  budgetId: string;
  limits: BudgetAmounts;
  pricing?: PricingTable | { id: string; revision: string; currency: string };
  parent?: { runId: string; actionId: string; reservationId: string };
}

/**
 * The `budget.opened` data to journal right after `run.started`: the budget's id and limits,
 * the pricing table's id, revision (computed from a full table) and currency, and a child
 * run's parent reservation.
 *
 * @example
 * ```ts
 * openedData({ budgetId: "budget-run-1", limits: { spend: 2_000_000 }, pricing: table });
 * // { budgetId: "budget-run-1", limits: { spend: 2000000 }, pricing: { id: "acme-2026-12", revision: "9f…", currency: "USD" } }
 * ```
 */
export function openedData(options: OpenedDataOptions): OpenedData {
  const ledger = createBudgetLedger({ budgetId: options.budgetId, limits: options.limits });
  const pricing =
    options.pricing === undefined
      ? undefined
      : "models" in options.pricing
        ? { id: options.pricing.id, revision: pricingRevisionOf(options.pricing), currency: options.pricing.currency }
        : { id: options.pricing.id, revision: options.pricing.revision, currency: options.pricing.currency };
  return ledger.opened({ ...(pricing === undefined ? {} : { pricing }), ...(options.parent === undefined ? {} : { parent: { ...options.parent } }) });
}
