import type { Amounts } from "./amounts.js";
import type { BudgetAmounts, BudgetDimension, BudgetLedgerV1, ChargeAttribution, EventData, ReservationResult, YokeEvent } from "@yoke/protocol";

/** What a reservation asks for: `amounts` held out of `parentId` (the budget id or an open reservation). */
export interface ReserveRequest {
  reservationId: string;
  parentId: string;
  amounts: BudgetAmounts;
  attribution: ChargeAttribution;
}

/** The data of a `budget.settled` event: what `settle` and `release` return, ready to journal. */
export type SettledData = EventData<"budget.settled">;
/** The data of a `budget.opened` event. */
export type OpenedData = EventData<"budget.opened">;
/** The data of a `budget.reserved` event. */
export type ReservedData = EventData<"budget.reserved">;

/** One reservation as the ledger holds it (plain data, JSON-safe). */
export interface ReservationView {
  readonly reservationId: string;
  readonly parentId: string;
  /** What it holds, as reserved (`tokens` filled in from input + output when absent). */
  readonly amounts: Amounts;
  readonly attribution: ChargeAttribution;
  readonly status: "open" | "settled";
  /** Once settled: what it was charged and what went back to its parent. */
  readonly charged?: Amounts;
  readonly released?: Amounts;
  /** Once settled: it was charged more than it held in a bounded dimension. */
  readonly overshoot?: boolean;
}

/** The whole state of a ledger: equal snapshots mean equal ledgers (used to check a fold against the live ledger). */
export interface BudgetSnapshot {
  readonly budgetId: string;
  readonly limits: Amounts;
  /** Held plus charged directly under the budget, per dimension it or a reservation named. */
  readonly committed: Amounts;
  /** In the order they were reserved. */
  readonly reservations: readonly ReservationView[];
}

/**
 * A hierarchical budget ledger (`BudgetLedgerV1`) that can also be rebuilt from the journal.
 *
 * @example
 * ```ts
 * const ledger = createBudgetLedger({ budgetId: "budget-1", limits: { tokens: 10_000 } });
 * const result = ledger.reserve({ reservationId: "r1", parentId: "budget-1", amounts: { tokens: 4_000 }, attribution: { kind: "model_call", runId: "run-1" } });
 * if (result.ok) ledger.settle("r1", { input_tokens: 1_200, output_tokens: 300 }); // charged 1,500 tokens, 2,500 released
 * ledger.remaining("budget-1"); // { tokens: 8_500 }
 * ```
 */
export interface BudgetLedger extends BudgetLedgerV1 {
  readonly budgetId: string;
  readonly limits: Amounts;
  /** Like `reserve`, without holding anything: whether the request would fit. Throws BUDGET_INVALID like `reserve`. */
  check(request: ReserveRequest): ReservationResult;
  reserve(request: ReserveRequest): ReservationResult;
  /** Charges `actual` and releases the rest; returns the `budget.settled` data to journal. */
  settle(reservationId: string, actual: BudgetAmounts, options?: { overshoot?: boolean }): SettledData;
  /** Gives back everything held (work that never started); returns the `budget.settled` data to journal. */
  release(reservationId: string): SettledData & { released: Amounts };
  /**
   * Folds one journaled event: `budget.opened` (of this budget), `budget.reserved`,
   * `budget.settled`, and the `reserved` / `settled` a carrier event holds (`model.requested`,
   * `model.responded`, `action.admitted`, … — `budgetEntriesOf` in @yoke/protocol); every
   * other event is ignored. An event the ledger already holds,
   * identically, is a no-op (so a writer may apply what it just journaled); an event that
   * contradicts the ledger (does not fit, unknown reservation, a different charge) throws
   * BUDGET_INVALID and changes nothing.
   */
  apply(event: YokeEvent): void;
  /** The `budget.opened` data for this budget (journal it once, right after `run.started`). */
  opened(options?: Omit<OpenedData, "budgetId" | "limits">): OpenedData;
  /**
   * What is left of one dimension under a reservation (or the budget): `remaining(id)[dimension]`
   * without making the whole object (admission reads one dimension per model call and dispatch).
   * undefined when nothing above it bounds that dimension; an unknown dimension is BUDGET_INVALID.
   */
  remainingOf(reservationId: string, dimension: BudgetDimension): number | undefined;
  /** Charged plus held under a reservation (or the budget), per dimension. */
  committed(reservationId: string): Amounts;
  /** A reservation, or undefined when the ledger has none by that id. */
  reservation(reservationId: string): ReservationView | undefined;
  /** The reservations still open (in-flight work to settle on resume), in the order reserved. */
  openReservations(): ReservationView[];
  snapshot(): BudgetSnapshot;
}
