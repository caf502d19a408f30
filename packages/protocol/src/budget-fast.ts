import { z } from "zod/v4";
import {
  BUDGET_DIMENSIONS,
  BudgetReservationSchema,
  BudgetSettlementSchema,
  CarriedReservationSchema,
  CarriedSettlementSchema,
  ChargeAttributionSchema,
} from "./budget.js";

/**
 * The budget members of events (`reserved`, `settled`, and the data of `budget.reserved` /
 * `budget.settled`), validated the fast way: a reservation rides on every model call and
 * every dispatch, and zod's object parse of it (three strict objects, eleven optional
 * amounts) cost ~4.5 µs an event, four times the rest of an `action.admitted`. A hand check
 * accepts exactly what the exported schema accepts, returning the value as it is (every
 * member is a primitive, so the parse would only copy it); anything it does not accept goes
 * through the exported schema, so an error names the same path and reason as before.
 * `budget-fast.test.ts` pins the equivalence over random values.
 */

const DIMENSIONS: ReadonlySet<string> = new Set(BUDGET_DIMENSIONS);
const KINDS: ReadonlySet<unknown> = new Set(ChargeAttributionSchema.shape.kind.options);
const ATTRIBUTION_STRINGS: ReadonlySet<string> = new Set(["turnId", "actionId", "attemptId", "verifierRunId", "childRunId", "note"]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function isId(value: unknown): boolean {
  return typeof value === "string" && value.length > 0;
}

/** Whether `value` is BudgetAmounts as the strict schema has it: known dimensions, each absent, undefined or a non-negative safe integer. */
export function isBudgetAmounts(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  for (const key in value) {
    if (!DIMENSIONS.has(key)) return false;
    const amount = value[key];
    if (amount !== undefined && !(Number.isSafeInteger(amount) && (amount as number) >= 0)) return false;
  }
  return true;
}

/** Whether `value` is a ChargeAttribution as the strict schema has it (`carried`: `runId` may be absent). */
export function isChargeAttribution(value: unknown, carried = false): boolean {
  if (!isPlainObject(value)) return false;
  if (!KINDS.has(value.kind) || !(isId(value.runId) || (carried && value.runId === undefined))) return false;
  for (const key in value) {
    const member = value[key];
    if (key === "kind" || key === "runId") continue;
    // An unknown member is refused even when undefined: the strict schema names it.
    if (key !== "discarded" && !ATTRIBUTION_STRINGS.has(key)) return false;
    if (member === undefined) continue;
    if (key === "discarded" ? typeof member !== "boolean" : typeof member !== "string") return false;
  }
  return true;
}

/** Whether `value` is a BudgetReservation (`carried`: a CarriedReservation) the schema takes as it is (no member it would strip). */
export function isBudgetReservation(value: unknown, carried = false): boolean {
  if (!isPlainObject(value)) return false;
  for (const key in value) if (key !== "reservationId" && key !== "parentId" && key !== "amounts" && key !== "attribution") return false;
  return (
    isId(value.reservationId) &&
    isId(value.parentId) &&
    isBudgetAmounts(value.amounts) &&
    (isChargeAttribution(value.attribution, carried) || (carried && value.attribution === undefined))
  );
}

/** Whether `value` is a BudgetSettlement (`carried`: a CarriedSettlement) the schema takes as it is (no member it would strip). */
export function isBudgetSettlement(value: unknown, carried = false): boolean {
  if (!isPlainObject(value)) return false;
  for (const key in value) if (key !== "reservationId" && key !== "charged" && key !== "released" && key !== "overshoot") return false;
  const overshoot = value.overshoot;
  return (
    isId(value.reservationId) &&
    isBudgetAmounts(value.charged) &&
    (isBudgetAmounts(value.released) || (carried && value.released === undefined)) &&
    (overshoot === undefined || typeof overshoot === "boolean")
  );
}

/** `full`, with `fast` deciding first: a value it accepts is the output as it is; any other goes through `full` (its output, or its issues). */
function fastPath<T extends z.ZodType>(full: T, fast: (value: unknown) => boolean): z.ZodType<z.output<T>, z.input<T>> {
  return z.any().transform((value, context) => {
    if (fast(value)) return value as z.output<T>;
    const parsed = full.safeParse(value);
    if (parsed.success) return parsed.data as z.output<T>;
    for (const issue of parsed.error.issues) context.issues.push({ ...issue, input: value } as never);
    return z.NEVER;
  }) as unknown as z.ZodType<z.output<T>, z.input<T>>;
}

/** BudgetReservationSchema for event data (see above). */
export const BudgetReservationData = fastPath(BudgetReservationSchema, (value) => isBudgetReservation(value));
/** BudgetSettlementSchema for event data (see above). */
export const BudgetSettlementData = fastPath(BudgetSettlementSchema, (value) => isBudgetSettlement(value));
/** CarriedReservationSchema for a carrier's `reserved` (see above). */
export const CarriedReservationData = fastPath(CarriedReservationSchema, (value) => isBudgetReservation(value, true));
/** CarriedSettlementSchema for a carrier's `settled` (see above). */
export const CarriedSettlementData = fastPath(CarriedSettlementSchema, (value) => isBudgetSettlement(value, true));
