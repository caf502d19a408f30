/**
 * @yoke/budget — hierarchical budgets a run (and its children) cannot escape.
 *
 * `createBudgetLedger` holds a budget's limits over tokens, spend, wall time, tool operations,
 * fan-out and concurrency; work reserves its worst case before it starts, settles to its
 * actual usage and releases the rest, and a child reservation (a subagent, a verifier) holds
 * from its parent and can never spend past it. Every method returns the event data the caller
 * journals (`budget.opened` / `budget.reserved` / `budget.settled`), and `foldBudget` rebuilds
 * the ledger from the journal after a crash. Pricing is integer micro-units (BigInt math,
 * rounded up), and `budgetReport` rebuilds per-dimension and per-attribution figures, with
 * cost per verified success as the headline, from journal events alone. Imports
 * `@yoke/protocol` only.
 */
export { addAmounts } from "./amounts.js";
export type { Amounts } from "./amounts.js";
export { foldBudget, openedData } from "./fold.js";
export type { OpenedDataOptions } from "./fold.js";
export { createBudgetLedger } from "./ledger.js";
export type { BudgetLedgerOptions } from "./ledger.js";
export type { BudgetLedger, BudgetSnapshot, OpenedData, ReservationView, ReservedData, ReserveRequest, SettledData } from "./ledger-types.js";
export { formatBudgetReport } from "./format-report.js";
export { assertPriced, createPricing, priceOf, pricingRevisionOf, spendOf, usageCharge, worstCaseCharge } from "./pricing.js";
export type { ModelRef, PricedUsage, Pricing } from "./pricing.js";
export { budgetReport } from "./report.js";
export type { BudgetReport, ChargeGroup, DimensionRow, OvershootRow, RunRow } from "./report.js";
