import { type ChargeAttribution, YokeError } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { createBudgetLedger } from "./index.js";

const call: ChargeAttribution = { kind: "model_call", runId: "run-1", turnId: "turn-1" };
const tool: ChargeAttribution = { kind: "tool_attempt", runId: "run-1", actionId: "a1", attemptId: "t1" };

function expectInvalid(run: () => unknown, message?: RegExp): void {
  try {
    run();
  } catch (error) {
    expect(YokeError.hasCode(error, "BUDGET_INVALID"), String(error)).toBe(true);
    if (message !== undefined) expect((error as Error).message).toMatch(message);
    return;
  }
  expect.unreachable("expected a BUDGET_INVALID error");
}

describe("createBudgetLedger", () => {
  it("holds a reservation out of the budget, charges the actual usage at settle and releases the rest", () => {
    const ledger = createBudgetLedger({ budgetId: "b", limits: { tokens: 10_000, spend: 1_000 } });
    expect(ledger.reserve({ reservationId: "r1", parentId: "b", amounts: { tokens: 4_000, spend: 600 }, attribution: call })).toEqual({
      ok: true,
      reservationId: "r1",
    });
    expect(ledger.remaining("b")).toEqual({ tokens: 6_000, spend: 400 });
    expect(ledger.settle("r1", { input_tokens: 1_200, output_tokens: 300, spend: 250 })).toEqual({
      reservationId: "r1",
      charged: { tokens: 1_500, input_tokens: 1_200, output_tokens: 300, spend: 250 },
      released: { tokens: 2_500, spend: 350 },
    });
    expect(ledger.remaining("b")).toEqual({ tokens: 8_500, spend: 750 });
  });

  it("refuses a reservation that does not fit, naming the dimension, the binding reservation and the figures", () => {
    const ledger = createBudgetLedger({ budgetId: "b", limits: { spend: 1_000, tool_ops: 5 } });
    ledger.reserve({ reservationId: "r1", parentId: "b", amounts: { spend: 600 }, attribution: call });
    expect(ledger.reserve({ reservationId: "r2", parentId: "b", amounts: { spend: 600, tool_ops: 1 }, attribution: tool })).toEqual({
      ok: false,
      dimension: "spend",
      reservationId: "b",
      limit: 1_000,
      committed: 600,
      requested: 600,
    });
    // Refused: nothing held, the id is still free.
    expect(ledger.remaining("b")).toEqual({ spend: 400, tool_ops: 5 });
    expect(ledger.reserve({ reservationId: "r2", parentId: "b", amounts: { spend: 400, tool_ops: 5 }, attribution: tool }).ok).toBe(true);
  });

  it("check answers like reserve without holding anything", () => {
    const ledger = createBudgetLedger({ budgetId: "b", limits: { turns: 1 } });
    const request = { reservationId: "r1", parentId: "b", amounts: { turns: 1 }, attribution: call };
    expect(ledger.check(request)).toEqual({ ok: true, reservationId: "r1" });
    expect(ledger.check({ ...request, amounts: { turns: 2 } })).toMatchObject({ ok: false, dimension: "turns" });
    expect(ledger.snapshot().reservations).toEqual([]);
  });

  it("a child reservation holds from its parent, and a dimension the parent does not name from the nearest ancestor that does", () => {
    const ledger = createBudgetLedger({ budgetId: "b", limits: { tokens: 1_000, spend: 100 } });
    ledger.reserve({ reservationId: "sub", parentId: "b", amounts: { tokens: 500 }, attribution: { kind: "subagent", runId: "run-1", actionId: "a1" } });
    expect(ledger.remaining("sub")).toEqual({ tokens: 500, spend: 100 });
    // Tokens bind at the subagent's reservation, not at the budget that still has 500.
    expect(ledger.reserve({ reservationId: "c1", parentId: "sub", amounts: { tokens: 501 }, attribution: call })).toEqual({
      ok: false,
      dimension: "tokens",
      reservationId: "sub",
      limit: 500,
      committed: 0,
      requested: 501,
    });
    ledger.reserve({ reservationId: "c1", parentId: "sub", amounts: { tokens: 300, spend: 60 }, attribution: call });
    // spend passes through the subagent (it named none): held from the budget.
    expect(ledger.remaining("b")).toEqual({ tokens: 500, spend: 40 });
    expect(ledger.reserve({ reservationId: "c2", parentId: "sub", amounts: { spend: 41 }, attribution: call })).toMatchObject({
      ok: false,
      dimension: "spend",
      reservationId: "b",
      committed: 60,
    });
    ledger.settle("c1", { tokens: 200, spend: 50 });
    expect(ledger.remaining("sub")).toEqual({ tokens: 300, spend: 50 });
    expectInvalid(() => ledger.settle("b", {}), /the budget itself/);
    // The subagent's own settle: at least what its children were charged, the rest released.
    expect(ledger.settle("sub", {})).toEqual({ reservationId: "sub", charged: { tokens: 200, spend: 50 }, released: { tokens: 300 } });
    expect(ledger.remaining("b")).toEqual({ tokens: 800, spend: 50 });
  });

  it("settling a reservation with open children, or reserving under a settled one, is BUDGET_INVALID", () => {
    const ledger = createBudgetLedger({ budgetId: "b", limits: { tokens: 1_000 } });
    ledger.reserve({ reservationId: "p", parentId: "b", amounts: { tokens: 500 }, attribution: call });
    ledger.reserve({ reservationId: "c", parentId: "p", amounts: { tokens: 100 }, attribution: call });
    expectInvalid(() => ledger.settle("p", { tokens: 10 }), /open reservation/);
    expectInvalid(() => ledger.release("p"), /open reservation/);
    ledger.release("c");
    ledger.release("p");
    expectInvalid(() => ledger.reserve({ reservationId: "c2", parentId: "p", amounts: {}, attribution: call }), /settled already/);
  });

  it("charging more than held needs { overshoot: true }, is recorded and still counted", () => {
    const ledger = createBudgetLedger({ budgetId: "b", limits: { tokens: 1_000 } });
    ledger.reserve({ reservationId: "r1", parentId: "b", amounts: { tokens: 900 }, attribution: call });
    expectInvalid(() => ledger.settle("r1", { tokens: 1_200 }), /overshoot/);
    expect(ledger.reservation("r1")?.status).toBe("open");
    expect(ledger.settle("r1", { tokens: 1_200 }, { overshoot: true })).toEqual({
      reservationId: "r1",
      charged: { tokens: 1_200 },
      released: {},
      overshoot: true,
    });
    expect(ledger.committed("b")).toEqual({ tokens: 1_200 });
    expect(ledger.remaining("b")).toEqual({ tokens: 0 });
    expect(ledger.reserve({ reservationId: "r2", parentId: "b", amounts: { tokens: 1 }, attribution: call })).toMatchObject({ ok: false, committed: 1_200 });
    // Within what was held, overshoot: true records nothing.
    const other = createBudgetLedger({ budgetId: "b", limits: { tokens: 1_000 } });
    other.reserve({ reservationId: "r1", parentId: "b", amounts: { tokens: 900 }, attribution: call });
    expect(other.settle("r1", { tokens: 900 }, { overshoot: true })).toEqual({ reservationId: "r1", charged: { tokens: 900 }, released: {} });
  });

  it("a dimension bounded by the budget but not named by the reservation holds nothing: charging it is an overshoot", () => {
    const ledger = createBudgetLedger({ budgetId: "b", limits: { tool_ops: 3 } });
    ledger.reserve({ reservationId: "r1", parentId: "b", amounts: { turns: 1 }, attribution: call });
    expectInvalid(() => ledger.settle("r1", { tool_ops: 1 }), /tool_ops 1 is more than the 0 held/);
    // A dimension nothing bounds is charged as it comes.
    expect(ledger.settle("r1", { turns: 1, tokens: 50, wall_time: 7 }).charged).toEqual({ turns: 1, tokens: 50, wall_time: 7 });
  });

  it("concurrency is a gauge: held while open, released in full at settle, never charged", () => {
    const ledger = createBudgetLedger({ budgetId: "b", limits: { concurrency: 2, fan_out: 10 } });
    const spawn = (id: string) => ledger.reserve({ reservationId: id, parentId: "b", amounts: { concurrency: 1, fan_out: 1 }, attribution: tool });
    expect(spawn("a").ok).toBe(true);
    expect(spawn("b1").ok).toBe(true);
    expect(spawn("c")).toMatchObject({ ok: false, dimension: "concurrency", limit: 2, committed: 2, requested: 1 });
    expect(ledger.settle("a", { concurrency: 1, fan_out: 1 })).toEqual({ reservationId: "a", charged: { fan_out: 1 }, released: { concurrency: 1 } });
    expect(spawn("c").ok).toBe(true);
    expect(ledger.remaining("b")).toEqual({ fan_out: 7, concurrency: 0 });
  });

  it("tokens is input + output when left out; release gives everything back", () => {
    const ledger = createBudgetLedger({ budgetId: "b", limits: { tokens: 100 } });
    ledger.reserve({ reservationId: "r1", parentId: "b", amounts: { input_tokens: 60, output_tokens: 40 }, attribution: call });
    expect(ledger.reservation("r1")?.amounts).toEqual({ tokens: 100, input_tokens: 60, output_tokens: 40 });
    expect(ledger.remaining("b")).toEqual({ tokens: 0 });
    expect(ledger.release("r1")).toEqual({ reservationId: "r1", charged: {}, released: { tokens: 100, input_tokens: 60, output_tokens: 40 } });
    expect(ledger.remaining("b")).toEqual({ tokens: 100 });
  });

  it("unknown reservations, duplicates, double settles, negative or fractional amounts and unknown dimensions are BUDGET_INVALID", () => {
    const ledger = createBudgetLedger({ budgetId: "b", limits: { tokens: 100 } });
    expectInvalid(() => ledger.settle("nope", {}), /unknown reservation "nope"/);
    expectInvalid(() => ledger.release("nope"), /unknown reservation/);
    expectInvalid(() => ledger.remaining("nope"), /unknown reservation/);
    expectInvalid(() => ledger.reserve({ reservationId: "r", parentId: "nope", amounts: {}, attribution: call }), /unknown reservation/);
    expectInvalid(() => ledger.reserve({ reservationId: "r", parentId: "b", amounts: { tokens: -1 }, attribution: call }), /non-negative integer/);
    expectInvalid(() => ledger.reserve({ reservationId: "r", parentId: "b", amounts: { tokens: 1.5 }, attribution: call }), /non-negative integer/);
    expectInvalid(() => ledger.reserve({ reservationId: "r", parentId: "b", amounts: { dollars: 1 } as never, attribution: call }), /unknown budget dimension/);
    expectInvalid(
      () => ledger.reserve({ reservationId: "r", parentId: "b", amounts: { constructor: 1 } as never, attribution: call }),
      /unknown budget dimension/,
    );
    expectInvalid(() => ledger.reserve({ reservationId: "r", parentId: "b", amounts: {}, attribution: { kind: "nope" } as never }), /attribution/);
    expectInvalid(() => ledger.reserve({ reservationId: "b", parentId: "b", amounts: {}, attribution: call }), /exists already/);
    ledger.reserve({ reservationId: "r", parentId: "b", amounts: { tokens: 10 }, attribution: call });
    expectInvalid(() => ledger.reserve({ reservationId: "r", parentId: "b", amounts: {}, attribution: call }), /exists already/);
    expectInvalid(() => ledger.settle("r", { tokens: 2 ** 0.5 }), /non-negative integer/);
    ledger.settle("r", { tokens: 5 });
    expectInvalid(() => ledger.settle("r", { tokens: 5 }), /settled already/);
    expectInvalid(() => ledger.release("r"), /settled already/);
    expectInvalid(() => createBudgetLedger({ budgetId: "", limits: {} }));
    expectInvalid(() => createBudgetLedger({ budgetId: "b", limits: { spend: -5 } }));
  });

  it("openReservations lists in-flight work in the order reserved; snapshot is plain data", () => {
    const ledger = createBudgetLedger({ budgetId: "b", limits: {} });
    ledger.reserve({ reservationId: "r1", parentId: "b", amounts: { tokens: 1 }, attribution: call });
    ledger.reserve({ reservationId: "r2", parentId: "b", amounts: { tool_ops: 1 }, attribution: tool });
    ledger.settle("r1", { tokens: 1 });
    expect(ledger.openReservations().map((view) => view.reservationId)).toEqual(["r2"]);
    expect(JSON.parse(JSON.stringify(ledger.snapshot()))).toEqual(ledger.snapshot());
  });

  it("writes settlements and amounts with keys in canonical JSON's order (journaled without a sorted copy)", () => {
    const ledger = createBudgetLedger({ budgetId: "b", limits: { turns: 5, tokens: 100, wall_time: 50, concurrency: 2 } });
    ledger.reserve({ reservationId: "r", parentId: "b", amounts: { wall_time: 9, turns: 1, tokens: 60, concurrency: 1 }, attribution: call });
    const settled = ledger.settle("r", { wall_time: 70, turns: 1, tokens: 10 }, { overshoot: true });
    const sorted = (value: object) => Object.keys(value).toSorted();
    expect(Object.keys(settled)).toEqual(["charged", "overshoot", "released", "reservationId"]);
    expect(Object.keys(settled.charged)).toEqual(sorted(settled.charged));
    expect(Object.keys(settled.released)).toEqual(sorted(settled.released));
    expect(Object.keys(ledger.remaining("b"))).toEqual(sorted(ledger.remaining("b")));
    expect(Object.keys(ledger.reservation("r")!.amounts)).toEqual(["concurrency", "tokens", "turns", "wall_time"]);
  });

  it("remainingOf reads one dimension of remaining: bounded by the nearest holder, undefined when nothing bounds it", () => {
    const ledger = createBudgetLedger({ budgetId: "b", limits: { wall_time: 1_000, tokens: 500 } });
    ledger.reserve({ reservationId: "r1", parentId: "b", amounts: { wall_time: 300, tool_ops: 4 }, attribution: call });
    ledger.reserve({ reservationId: "r2", parentId: "r1", amounts: { wall_time: 100 }, attribution: tool });
    for (const id of ["b", "r1", "r2"]) {
      const whole = ledger.remaining(id);
      for (const dimension of ["wall_time", "tokens", "tool_ops", "spend"] as const)
        expect(ledger.remainingOf(id, dimension), `${id} ${dimension}`).toBe(whole[dimension]);
    }
    expect(ledger.remainingOf("b", "wall_time")).toBe(700);
    expect(ledger.remainingOf("r1", "wall_time")).toBe(200);
    // r2 names no tokens: the budget's bind it; nothing names spend.
    expect(ledger.remainingOf("r2", "tokens")).toBe(500);
    expect(ledger.remainingOf("r2", "spend")).toBeUndefined();
    ledger.settle("r2", { wall_time: 150 }, { overshoot: true });
    expect(ledger.remainingOf("r1", "wall_time")).toBe(150);
    expectInvalid(() => ledger.remainingOf("nope", "wall_time"), /unknown reservation/);
    expectInvalid(() => ledger.remainingOf("b", "minutes" as "wall_time"), /unknown budget dimension "minutes"/);
  });

  it("a settled reservation reads back what settle returned, however often, and changing what settle returned changes nothing", () => {
    const ledger = createBudgetLedger({ budgetId: "b", limits: { tokens: 100, wall_time: 50, concurrency: 2 } });
    ledger.reserve({ reservationId: "r", parentId: "b", amounts: { tokens: 60, wall_time: 40, concurrency: 1, tool_ops: 3 }, attribution: tool });
    const settled = ledger.settle("r", { tokens: 10, wall_time: 70, tool_ops: 1 }, { overshoot: true });
    expect(settled).toEqual({
      charged: { tokens: 10, tool_ops: 1, wall_time: 70 },
      overshoot: true,
      released: { concurrency: 1, tokens: 50, tool_ops: 2 },
      reservationId: "r",
    });
    const view = { charged: settled.charged, released: settled.released, overshoot: true };
    (settled.charged as Record<string, number>).tokens = 99;
    (settled.released as Record<string, number>).tokens = 0;
    // Another settlement after it (the ledger plans in scratch vectors) leaves it as it was.
    ledger.reserve({ reservationId: "r2", parentId: "b", amounts: { tokens: 5 }, attribution: call });
    ledger.settle("r2", { tokens: 5 });
    for (let read = 0; read < 2; read++) {
      expect(ledger.reservation("r")).toMatchObject({ status: "settled", charged: { tokens: 10, tool_ops: 1, wall_time: 70 }, overshoot: true });
      expect(ledger.reservation("r")!.released).toEqual({ concurrency: 1, tokens: 50, tool_ops: 2 });
    }
    expect(view.charged.tokens).toBe(99);
    // Nor does changing a view's attribution or the request's after the reservation.
    (ledger.reservation("r")!.attribution as { note?: string }).note = "changed";
    expect(ledger.reservation("r")!.attribution).toEqual(tool);
    expect(ledger.remaining("b")).toEqual({ concurrency: 2, tokens: 85, wall_time: 0 });
    // Re-applying the settlement as journaled is a no-op; a different one is refused.
    ledger.apply(
      settledEvent({
        reservationId: "r",
        charged: { tokens: 10, tool_ops: 1, wall_time: 70 },
        overshoot: true,
        released: { concurrency: 1, tokens: 50, tool_ops: 2 },
      }),
    );
    expectInvalid(
      () => ledger.apply(settledEvent({ reservationId: "r", charged: { tokens: 11, tool_ops: 1, wall_time: 70 }, overshoot: true })),
      /settled already, differently/,
    );
  });

  it("the ledger keeps its own copy of an attribution: changing the request's or a view's afterwards changes nothing", () => {
    const ledger = createBudgetLedger({ budgetId: "b", limits: { tokens: 10 } });
    const attribution: ChargeAttribution = { kind: "model_call", runId: "run-1", turnId: "turn-1" };
    ledger.reserve({ reservationId: "r", parentId: "b", amounts: { tokens: 1 }, attribution });
    (attribution as { turnId?: string }).turnId = "turn-2";
    (ledger.reservation("r")!.attribution as { note?: string }).note = "changed";
    (ledger.openReservations()[0]!.attribution as { runId: string }).runId = "run-2";
    expect(ledger.reservation("r")!.attribution).toEqual({ kind: "model_call", runId: "run-1", turnId: "turn-1" });
    expect(ledger.snapshot().reservations[0]!.attribution).toEqual({ kind: "model_call", runId: "run-1", turnId: "turn-1" });
  });
});

function settledEvent(data: Record<string, unknown>): Parameters<ReturnType<typeof createBudgetLedger>["apply"]>[0] {
  return { type: "budget.settled", data } as unknown as Parameters<ReturnType<typeof createBudgetLedger>["apply"]>[0];
}
