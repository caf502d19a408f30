import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BudgetReservationSchema, BudgetSettlementSchema, CarriedReservationSchema, CarriedSettlementSchema } from "./budget.js";
import {
  BudgetReservationData,
  BudgetSettlementData,
  CarriedReservationData,
  CarriedSettlementData,
  isBudgetAmounts,
  isBudgetReservation,
  isBudgetSettlement,
} from "./budget-fast.js";
import { parseYokeEvent } from "./events.js";
import { YokeError } from "./errors.js";

// Values near the valid ones: each member valid, missing, or replaced by something close to valid.
const oddValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.constant(""),
  fc.constant(-1),
  fc.constant(1.5),
  fc.constant(Number.MAX_SAFE_INTEGER + 2),
  fc.constant(Number.NaN),
  fc.constant("3"),
  fc.constant(true),
  fc.constant([]),
  fc.constant({}),
);
const amountValue = fc.oneof({ weight: 4, arbitrary: fc.nat() }, { weight: 1, arbitrary: oddValue });
const dimension = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom("turns", "tokens", "input_tokens", "output_tokens", "spend", "wall_time", "tool_ops", "fan_out", "concurrency") },
  { weight: 1, arbitrary: fc.constantFrom("cache_read_tokens", "cache_write_tokens", "bogus", "toString", "__proto__") },
);
const amounts = fc.oneof({ weight: 8, arbitrary: fc.dictionary(dimension, amountValue, { maxKeys: 5 }) }, { weight: 1, arbitrary: oddValue });
const id = fc.oneof({ weight: 6, arbitrary: fc.constantFrom("reservation_1", "run_1", "turn_1", "x") }, { weight: 1, arbitrary: oddValue });
const attribution = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record(
      {
        kind: fc.oneof(fc.constantFrom("run", "model_call", "tool_attempt", "verifier", "subagent"), fc.constantFrom("nope", "")),
        runId: id,
        turnId: id,
        attemptId: id,
        discarded: fc.oneof(fc.boolean(), oddValue),
        note: id,
        extra: id,
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: oddValue },
);
const reservation = fc.record(
  { reservationId: id, parentId: id, amounts, attribution, extra: fc.constant(1) },
  { requiredKeys: ["reservationId", "parentId", "amounts", "attribution"] },
);
const settlement = fc.record(
  { reservationId: id, charged: amounts, released: amounts, overshoot: fc.oneof(fc.boolean(), oddValue), extra: fc.constant(1) },
  { requiredKeys: ["reservationId", "charged", "released"] },
);

const validReservation = fc.record({
  reservationId: fc.constantFrom("reservation_1", "r"),
  parentId: fc.constantFrom("reservation_0", "p"),
  amounts: fc.dictionary(fc.constantFrom("turns", "tokens", "input_tokens", "spend", "wall_time", "tool_ops", "concurrency"), fc.nat(), { maxKeys: 4 }),
  attribution: fc.record(
    { kind: fc.constantFrom("model_call", "tool_attempt"), runId: fc.constant("run_1"), turnId: fc.constant("turn_1"), discarded: fc.boolean() },
    { requiredKeys: ["kind", "runId"] },
  ),
});
const validSettlement = fc.record(
  {
    reservationId: fc.constantFrom("reservation_1", "r"),
    charged: fc.dictionary(fc.constantFrom("turns", "tokens", "wall_time", "tool_ops"), fc.nat(), { maxKeys: 3 }),
    released: fc.dictionary(fc.constantFrom("tokens", "wall_time", "concurrency"), fc.nat(), { maxKeys: 3 }),
    overshoot: fc.boolean(),
  },
  { requiredKeys: ["reservationId", "charged", "released"] },
);
/** A valid value with one member, at any depth, replaced by a value close to valid (or an unknown member added). */
function oneOff(valid: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<unknown> {
  return fc.tuple(valid, fc.nat(), oddValue, fc.boolean()).map(([value, pick, odd, add]) => {
    const copy = structuredClone(value) as Record<string, unknown>;
    const paths: [Record<string, unknown>, string][] = [];
    for (const [key, member] of Object.entries(copy)) {
      paths.push([copy, key]);
      if (typeof member === "object" && member !== null) for (const inner of Object.keys(member)) paths.push([member as Record<string, unknown>, inner]);
      if (typeof member === "object" && member !== null && add) paths.push([member as Record<string, unknown>, "unknown_member"]);
    }
    const [holder, key] = paths[pick % paths.length]!;
    holder[key] = odd === undefined && key === "unknown_member" ? 1 : odd;
    return copy;
  });
}

const outcome = (result: { success: boolean; data?: unknown; error?: { issues: { path: PropertyKey[]; code: string }[] } }) =>
  result.success ? { data: result.data } : { issues: result.error!.issues.map((issue) => ({ path: issue.path, code: issue.code })) };

describe("the fast path of the budget members of events", () => {
  it("accepts, refuses and outputs exactly what BudgetReservationSchema does, with the same issues", () => {
    fc.assert(
      fc.property(reservation, (value) => {
        expect(outcome(BudgetReservationData.safeParse(value))).toEqual(outcome(BudgetReservationSchema.safeParse(value)));
      }),
      { numRuns: 400 },
    );
  });

  it("accepts, refuses and outputs exactly what BudgetSettlementSchema does, with the same issues", () => {
    fc.assert(
      fc.property(settlement, (value) => {
        expect(outcome(BudgetSettlementData.safeParse(value))).toEqual(outcome(BudgetSettlementSchema.safeParse(value)));
      }),
      { numRuns: 400 },
    );
  });

  it("accepts, refuses and outputs exactly what the carried forms' schemas do (a run-less attribution, a settlement without `released`)", () => {
    const released = fc.oneof(
      settlement,
      settlement.map(({ released: _released, ...rest }) => rest),
    );
    fc.assert(
      fc.property(reservation, released, (reserved, settled) => {
        expect(outcome(CarriedReservationData.safeParse(reserved))).toEqual(outcome(CarriedReservationSchema.safeParse(reserved)));
        expect(outcome(CarriedSettlementData.safeParse(settled))).toEqual(outcome(CarriedSettlementSchema.safeParse(settled)));
      }),
      { numRuns: 400 },
    );
    expect(isBudgetReservation({ reservationId: "r", parentId: "p", amounts: {}, attribution: { kind: "model_call" } }, true)).toBe(true);
    expect(isBudgetReservation({ reservationId: "r", parentId: "p", amounts: {}, attribution: { kind: "model_call" } })).toBe(false);
    expect(isBudgetSettlement({ reservationId: "r", charged: {} }, true)).toBe(true);
    expect(isBudgetSettlement({ reservationId: "r", charged: {} })).toBe(false);
  });

  it("agrees with the schemas on a valid value with any one member off", () => {
    fc.assert(
      fc.property(oneOff(validReservation), oneOff(validSettlement), (reserved, settled) => {
        expect(outcome(BudgetReservationData.safeParse(reserved))).toEqual(outcome(BudgetReservationSchema.safeParse(reserved)));
        expect(outcome(BudgetSettlementData.safeParse(settled))).toEqual(outcome(BudgetSettlementSchema.safeParse(settled)));
        expect(outcome(CarriedReservationData.safeParse(reserved))).toEqual(outcome(CarriedReservationSchema.safeParse(reserved)));
        expect(outcome(CarriedSettlementData.safeParse(settled))).toEqual(outcome(CarriedSettlementSchema.safeParse(settled)));
      }),
      { numRuns: 600 },
    );
  });

  it("takes a valid member on the hand check alone, and only a plain object", () => {
    expect(isBudgetAmounts({ turns: 1, wall_time: 0 })).toBe(true);
    expect(isBudgetAmounts(Object.assign(Object.create({ inherited: 1 }), { turns: 1 }))).toBe(false);
    expect(isBudgetAmounts(new Map())).toBe(false);
    expect(isBudgetAmounts({ turns: 2 ** 53 })).toBe(false);
    expect(
      isBudgetReservation({ reservationId: "r", parentId: "p", amounts: { tool_ops: 1 }, attribution: { kind: "tool_attempt", runId: "run", attemptId: "a" } }),
    ).toBe(true);
    expect(isBudgetSettlement({ reservationId: "r", charged: {}, released: { concurrency: 1 }, overshoot: true })).toBe(true);
    expect(isBudgetSettlement({ reservationId: "r", charged: {}, released: {}, overshoot: "yes" })).toBe(false);
  });

  it("names the member's path in the EVENT_INVALID of an event that carries a malformed one", () => {
    const event = {
      schemaVersion: 1,
      tenantId: "t",
      runId: "run_1",
      seq: 3,
      type: "model.requested",
      at: 1,
      causationId: null,
      prevHash: "0".repeat(64),
      hash: "0".repeat(64),
      data: {
        turnId: "turn_1",
        requestHash: "a".repeat(64),
        messageCount: 1,
        reserved: { reservationId: "r", parentId: "p", amounts: { tokens: -5 }, attribution: { kind: "model_call", runId: "run_1" } },
      },
    };
    let error: unknown;
    try {
      parseYokeEvent(event);
    } catch (caught) {
      error = caught;
    }
    expect(YokeError.isInstance(error) && error.code).toBe("EVENT_INVALID");
    expect((error as YokeError).message).toContain('"reserved"');
    expect((error as YokeError).message).toContain('"amounts"');
    expect((error as YokeError).message).toContain('"tokens"');
  });
});
