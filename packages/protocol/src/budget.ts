import { z } from "zod/v4";
import { BUDGET_DIMENSION_SPECS, BUDGET_DIMENSIONS, type BudgetDimensionSpec } from "./budget-dimensions.js";

/**
 * The budget vocabulary: the dimensions a run is bounded by, amounts over them, who a charge
 * is attributed to, versioned pricing tables, and the ledger interface `@yoke/budget`
 * implements. Every amount is a non-negative integer in its dimension's unit (the dimensions,
 * their units and kinds are listed once, in `BUDGET_DIMENSION_SPECS`).
 */
export { BUDGET_DIMENSIONS, BUDGET_DIMENSION_SPECS, type BudgetDimensionSpec };
export const BudgetDimensionSchema = z.enum(BUDGET_DIMENSIONS);
export type BudgetDimension = z.infer<typeof BudgetDimensionSchema>;

const amount = z.number().int().nonnegative();
/** An amount per dimension; a missing dimension is zero (in a charge) or unbounded (in limits). */
export const BudgetAmountsSchema = z
  .object(Object.fromEntries(BUDGET_DIMENSIONS.map((dimension) => [dimension, amount.optional()])) as { [D in BudgetDimension]: z.ZodOptional<typeof amount> })
  .strict();
export type BudgetAmounts = z.infer<typeof BudgetAmountsSchema>;

/**
 * What a reservation (and so its charge) is for. `kind`:
 * - `model_call`: one model request of a turn (`turnId`; `discarded` when its response was
 *   thrown away: a retry, a cut stream, a response that broke the contract);
 * - `tool_attempt`: one attempt of an action (`actionId`, `attemptId`);
 * - `verifier`: one verifier run (`verifierRunId`);
 * - `subagent`: a child run's whole reservation (`actionId` of the spawn, `childRunId`);
 * - `compensation` / `reconciliation`: undoing or resolving an action (`actionId`);
 * - `run`: the run itself (wall time, turns), and `other` for a caller's own charges.
 */
export const ChargeAttributionSchema = z
  .object({
    kind: z.enum(["run", "model_call", "tool_attempt", "verifier", "subagent", "compensation", "reconciliation", "other"]),
    runId: z.string().min(1),
    turnId: z.string().optional(),
    actionId: z.string().optional(),
    attemptId: z.string().optional(),
    verifierRunId: z.string().optional(),
    childRunId: z.string().optional(),
    /** The work was discarded (a retried model call, an attempt that was retried): charged all the same. */
    discarded: z.boolean().optional(),
    /** Free text for reports ("retry 2 of model call"). */
    note: z.string().optional(),
  })
  .strict();
export type ChargeAttribution = z.infer<typeof ChargeAttributionSchema>;

/**
 * A reservation as journaled: `amounts` held out of `parentId` for the work `attribution`
 * names. The data of `budget.reserved`, and the `reserved` member of the event that starts
 * the work when it has one (`model.requested`, `action.admitted`, `action.executing`,
 * `verifier.started`): one event per step, not two.
 */
export const BudgetReservationSchema = z.object({
  reservationId: z.string().min(1),
  parentId: z.string().min(1),
  amounts: BudgetAmountsSchema,
  attribution: ChargeAttributionSchema,
});
export type BudgetReservation = z.infer<typeof BudgetReservationSchema>;

/**
 * A settlement as journaled: `charged` is what the work used (attributed as reserved),
 * `released` what goes back to the parent. The data of `budget.settled`, and the `settled`
 * member of the event that ends the work when it has one (`model.responded`,
 * `action.committed`, `action.failed`, `action.uncertain`, `verifier.finished`).
 */
export const BudgetSettlementSchema = z.object({
  reservationId: z.string().min(1),
  charged: BudgetAmountsSchema,
  released: BudgetAmountsSchema,
  /** The work used more than it held (the one in-flight overshoot a halt allows). */
  overshoot: z.boolean().optional(),
});
export type BudgetSettlement = z.infer<typeof BudgetSettlementSchema>;

/**
 * A reservation as the event that starts its work carries it (`reserved`): its attribution may
 * leave out the ids the carrier already holds (the run, and the carrier's `turnId`,
 * `actionId`, `attemptId`, `verifierRunId`), marked by an absent `runId`; and it is left out
 * whole when all that is left is the kind of work its carrier starts (`model_call` on
 * `model.requested`, `tool_attempt` on `action.admitted` and `action.executing`, `verifier` on
 * `verifier.started`). `budgetEntriesOf` gives the whole reservation back; journals written
 * before carry the whole attribution, or the whole reservation.
 */
export const CarriedReservationSchema = BudgetReservationSchema.extend({ attribution: ChargeAttributionSchema.partial({ runId: true }).optional() });
export type CarriedReservation = z.infer<typeof CarriedReservationSchema>;

/**
 * A settlement as the event that ends its work carries it (`settled`): `released` may be left
 * out, since it is what the reservation held less what was charged (the ledger works it out).
 */
export const CarriedSettlementSchema = BudgetSettlementSchema.partial({ released: true });
export type CarriedSettlement = z.infer<typeof CarriedSettlementSchema>;

/**
 * The price of one model, in integer micro-units of the table's currency per million tokens
 * (USD 3.00 per million input tokens is `input: 3_000_000`). `cacheRead` / `cacheWrite`
 * default to `input` when absent. `model` is an exact model id or a prefix ending in `*`.
 */
export const ModelPriceSchema = z
  .object({
    provider: z.string().min(1),
    model: z.string().min(1),
    input: amount,
    output: amount,
    cacheRead: amount.optional(),
    cacheWrite: amount.optional(),
  })
  .strict();
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/** A versioned pricing table: its revision is the SHA-256 of its canonical JSON, journaled with the run's budget. */
export const PricingTableSchema = z
  .object({
    version: z.literal(1),
    id: z.string().min(1),
    currency: z.string().min(3),
    models: z.array(ModelPriceSchema),
  })
  .strict();
export type PricingTable = z.infer<typeof PricingTableSchema>;

/** A reservation that fits, or the first dimension it does not fit in (with the limit, what is used and held, and what was asked). */
export type ReservationResult =
  | { readonly ok: true; readonly reservationId: string }
  | {
      readonly ok: false;
      readonly dimension: BudgetDimension;
      /** The reservation whose limit binds (the root, or an ancestor on the way up). */
      readonly reservationId: string;
      readonly limit: number;
      /** Charged plus still held under that reservation. */
      readonly committed: number;
      readonly requested: number;
    };

/**
 * A hierarchical budget ledger, version 1. A reservation holds `amounts` out of its parent's
 * remaining room (and so out of every ancestor's); `settle` turns a reservation into a charge
 * of the actual usage (never more than held, except the one in-flight overshoot the caller
 * names with `overshoot: true`) and releases the rest; `release` gives everything back (work
 * that never started). A child reservation can itself hold children: a subagent reserves
 * from its parent run, and its own calls reserve from that. The ledger is a fold: `apply`
 * of the journaled events (`budget.opened`, `budget.reserved`, `budget.settled`) rebuilds
 * it after a crash; methods return the event data the caller journals.
 */
export interface BudgetLedgerV1 {
  readonly specificationVersion: "v1";
  /** Room left under a reservation (its amounts minus charges and holds of its children), per bounded dimension. */
  remaining(reservationId: string): BudgetAmounts;
  reserve(request: { reservationId: string; parentId: string; amounts: BudgetAmounts; attribution: ChargeAttribution }): ReservationResult;
  settle(reservationId: string, actual: BudgetAmounts, options?: { overshoot?: boolean }): { charged: BudgetAmounts; released: BudgetAmounts };
  release(reservationId: string): { released: BudgetAmounts };
}
