import { z } from "zod/v4";
import { JsonValueSchema } from "./model.js";
import { CarriesSchema } from "./carries.js";
import { ArgumentProvenanceSchema, InfluenceSchema, PolicyDecisionSchema } from "./policy.js";
import { PolicyDelegationSchema } from "./delegation.js";
import { CarriedReservationData, CarriedSettlementData } from "./budget-fast.js";

// Members that several event families share: references to a turn, call, action or attempt,
// an action's input, the policy decision, and the budget a carrier event holds.
export const turnRef = { turnId: z.string() };
export const callRef = { turnId: z.string(), toolCallId: z.string(), toolName: z.string() };
export const actionRef = { actionId: z.string() };
/**
 * An action's input, validated by its tool's schema. `inputFromCall: true` instead of `input`:
 * the input is exactly the arguments of the call it names (`toolCallId`) as the run's
 * `model.responded` holds them, journaled once there; the fold gives `input` back
 * (`withCallInput`), and refuses (EVENT_INVALID) a marker whose call has no arguments.
 * Exactly one of the two is present; journals written before the marker always carry `input`.
 */
export const callInput = { input: JsonValueSchema.optional(), inputFromCall: z.literal(true).optional() };
export const attemptRef = { actionId: z.string(), attemptId: z.string() };
/**
 * The policy decision on a call, the provenance of its argument values and the influence on
 * the decision to make it, journaled with the action (or the refusal) it led to. Absent in
 * journals written before policy; `influence` is absent in journals written before it (and
 * an older reader that drops it folds the same state: the decision itself is `policy`).
 */
export const decided = {
  policy: PolicyDecisionSchema.optional(),
  provenance: z.array(ArgumentProvenanceSchema).optional(),
  influence: InfluenceSchema.optional(),
  /** What the call carries (`Carries`): absent when its tool declares no payloads, and in journals written before it. */
  carries: CarriesSchema.optional(),
  /** Where the call stood against the run's delegation (absent for a run without one). */
  delegation: PolicyDelegationSchema.optional(),
};
/**
 * The budget an event carries (docs/decisions/0016): the reservation of the work it starts
 * (`reserved`) or the settlement of the work it ends (`settled`), in place of a separate
 * `budget.reserved` / `budget.settled` next to it, in the carried form (the attribution without
 * the ids the carrier holds, the settlement without `released`: CarriedReservation,
 * CarriedSettlement; `compactReservation`, `compactSettlement`). Absent without a budget, and
 * in journals written before; `budgetEntriesOf` reads every form back whole.
 */
export const reserves = { reserved: CarriedReservationData.optional() };
/** The decision an attempt leased outside its action's admission was asked under. */
export const reauthorized = { rule: z.string().optional(), policy: PolicyDecisionSchema.optional() };
export const settles = { settled: CarriedSettlementData.optional() };
