import { z } from "zod/v4";
import { BudgetAmountsSchema } from "./budget.js";
import { BudgetReservationData, BudgetSettlementData } from "./budget-fast.js";
import { HashSchema } from "./event-envelope.js";

/** A run's budget: opened once, then a reservation and a settlement per unit of work that no carrier event holds. */
export const BUDGET_EVENTS = {
  /**
   * The run's budget: its root reservation (`budgetId`) with its limits, the pricing table
   * spend is computed with (id and SHA-256 revision), and, for a child run, the parent's run,
   * action and the reservation it was given. Journaled once, right after `run.started`.
   */
  "budget.opened": z.object({
    budgetId: z.string().min(1),
    limits: BudgetAmountsSchema,
    pricing: z.object({ id: z.string(), revision: HashSchema, currency: z.string() }).optional(),
    parent: z.object({ runId: z.string(), actionId: z.string(), reservationId: z.string() }).optional(),
  }),
  /** Worst case held before work starts (a model call, a dispatch, a verifier, a child), out of `parentId`. */
  "budget.reserved": BudgetReservationData,
  /** The work finished: `charged` is what it used (attributed as reserved), `released` goes back to the parent. */
  "budget.settled": BudgetSettlementData,
} as const;
