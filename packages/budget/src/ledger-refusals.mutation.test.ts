// Bad input to the ledger, clause by clause: what the first mutation run of the budget package
// (reports/mutation/budget.md) found unpinned. Each refusal is BUDGET_INVALID with its details,
// and a refused request leaves the ledger as it was.
import { type ChargeAttribution, type YokeEvent, YokeError } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { addAmounts, createBudgetLedger } from "./index.js";

const call: ChargeAttribution = { kind: "model_call", runId: "run-1", turnId: "turn-1" };

/** The BUDGET_INVALID `run` throws. */
function refusal(run: () => unknown): YokeError {
  try {
    run();
  } catch (error) {
    if (YokeError.hasCode(error, "BUDGET_INVALID")) return error;
    throw error;
  }
  return expect.unreachable("expected a BUDGET_INVALID error");
}

const ledgerOf = () => createBudgetLedger({ budgetId: "b", limits: { tokens: 1_000, tool_ops: 5 } });

describe("amounts that are not amounts", () => {
  it.each([
    ["null", null],
    ["a number", 5],
    ["a string", "tokens=5"],
    ["an array", [5]],
    ["undefined", undefined],
  ])("amounts as %s: refused, nothing held", (_label, amounts) => {
    const ledger = ledgerOf();
    const error = refusal(() => ledger.reserve({ reservationId: "r1", parentId: "b", amounts: amounts as never, attribution: call }));
    expect(error.message).toBe("reserve r1: expected an object of amounts");
    expect(ledger.snapshot().reservations).toEqual([]);
    expect(ledger.remaining("b")).toEqual({ tokens: 1_000, tool_ops: 5 });
  });

  it("an unknown dimension names itself in the details", () => {
    const error = refusal(() => ledgerOf().reserve({ reservationId: "r1", parentId: "b", amounts: { calories: 1 } as never, attribution: call }));
    expect(error.message).toBe('reserve r1: unknown budget dimension "calories"');
    expect(error.details).toEqual({ dimension: "calories" });
  });

  it.each([-1, 1.5, Number.NaN, "3", 2 ** 53])("a value of %s names the dimension and the value", (value) => {
    const error = refusal(() => ledgerOf().reserve({ reservationId: "r1", parentId: "b", amounts: { tool_ops: value } as never, attribution: call }));
    expect(error.message).toBe(`reserve r1: tool_ops must be a non-negative integer, got ${String(value)}`);
    expect(error.details).toEqual({ dimension: "tool_ops", value });
  });

  it("a member given as undefined is one left out", () => {
    const ledger = ledgerOf();
    expect(ledger.reserve({ reservationId: "r1", parentId: "b", amounts: { tokens: 10, tool_ops: undefined }, attribution: call }).ok).toBe(true);
    expect(ledger.reservation("r1")?.amounts).toEqual({ tokens: 10 });
    expect(ledger.remaining("b")).toEqual({ tokens: 990, tool_ops: 5 });
  });
});

describe("a request that is not a reservation", () => {
  it("refuses a request that is not an object, an empty id, an id taken, an unknown or settled parent", () => {
    const ledger = ledgerOf();
    expect(refusal(() => ledger.reserve(null as never)).message).toBe("reserve: expected a request object");
    expect(refusal(() => ledger.reserve({ reservationId: "", parentId: "b", amounts: {}, attribution: call })).message).toBe(
      "reserve: reservationId must be a non-empty string",
    );
    ledger.reserve({ reservationId: "r1", parentId: "b", amounts: { tokens: 10 }, attribution: call });
    const taken = refusal(() => ledger.reserve({ reservationId: "r1", parentId: "b", amounts: {}, attribution: call }));
    expect(taken.message).toBe('reserve: reservation "r1" exists already');
    expect(taken.details).toEqual({ reservationId: "r1" });
    ledger.settle("r1", { tokens: 1 });
    const settledParent = refusal(() => ledger.reserve({ reservationId: "r2", parentId: "r1", amounts: {}, attribution: call }));
    expect(settledParent.message).toBe('reserve: parent "r1" is settled already');
    expect(settledParent.details).toEqual({ reservationId: "r2", parentId: "r1" });
  });
});

describe("attributions: the fast path accepts exactly what the schema accepts", () => {
  const base = { kind: "tool_attempt", runId: "run-1" };
  it.each([
    ["an unknown kind", { ...base, kind: "lunch" }],
    ["no kind", { runId: "run-1" }],
    ["no run", { kind: "tool_attempt" }],
    ["an empty run id", { ...base, runId: "" }],
    ["a run id that is not a string", { ...base, runId: 7 }],
    ["discarded that is not a boolean", { ...base, discarded: "yes" }],
    ["a note that is not a string", { ...base, note: 3 }],
    ["a turn id that is not a string", { ...base, turnId: null }],
    ["an unknown member", { ...base, cost: "high" }],
    ["not an object", "tool_attempt"],
    ["null", null],
  ])("refuses %s, naming the reservation", (_label, attribution) => {
    const ledger = ledgerOf();
    const error = refusal(() => ledger.reserve({ reservationId: "r1", parentId: "b", amounts: { tool_ops: 1 }, attribution: attribution as never }));
    expect(error.message).toMatch(/^reserve r1: malformed attribution: /);
    expect(error.details).toEqual({ reservationId: "r1" });
    expect(ledger.snapshot().reservations).toEqual([]);
  });

  it("accepts every member the schema has, and keeps a copy the caller cannot change", () => {
    const ledger = ledgerOf();
    const whole: ChargeAttribution = {
      kind: "subagent",
      runId: "run-1",
      turnId: "turn-1",
      actionId: "a1",
      attemptId: "t1",
      verifierRunId: "v1",
      childRunId: "run-2",
      discarded: false,
      note: "child",
    };
    const given = { ...whole };
    ledger.reserve({ reservationId: "r1", parentId: "b", amounts: { tool_ops: 1 }, attribution: given });
    given.note = "changed";
    expect(ledger.reservation("r1")?.attribution).toEqual(whole);
  });
});

describe("settling what cannot be settled", () => {
  it("refuses the budget itself, a reservation settled already, and one with open reservations under it, naming it", () => {
    const ledger = ledgerOf();
    ledger.reserve({ reservationId: "r1", parentId: "b", amounts: { tokens: 100 }, attribution: call });
    ledger.reserve({ reservationId: "r2", parentId: "r1", amounts: { tokens: 10 }, attribution: call });
    const root = refusal(() => ledger.settle("b", {}));
    expect(root.message).toBe('settle: "b" is the budget itself, not a reservation');
    expect(root.details).toEqual({ reservationId: "b" });
    const open = refusal(() => ledger.settle("r1", {}));
    expect(open.message).toBe('settle: reservation "r1" has 1 open reservation(s) under it; settle them first');
    expect(open.details).toEqual({ reservationId: "r1" });
    ledger.settle("r2", { tokens: 5 });
    const twice = refusal(() => ledger.settle("r2", { tokens: 5 }));
    expect(twice.message).toBe('settle: reservation "r2" is settled already');
    expect(twice.details).toEqual({ reservationId: "r2" });
    // Nothing moved by the refusals: r1 still holds its 100, of which r2 was charged 5.
    expect(ledger.remaining("b")).toEqual({ tokens: 900, tool_ops: 5 });
  });
});

describe("every method names itself when the reservation is unknown", () => {
  it.each(["settle", "release", "remaining", "remainingOf", "committed"] as const)("%s", (method) => {
    const ledger = ledgerOf();
    const error = refusal(() =>
      method === "settle" ? ledger.settle("x", {}) : method === "remainingOf" ? ledger.remainingOf("x", "tokens") : ledger[method]("x"),
    );
    expect(error.message).toBe(`${method}: unknown reservation "x"`);
    expect(error.details).toEqual({ reservationId: "x" });
  });

  it("remainingOf names an unknown dimension; a ledger needs a budget id and amounts for limits; the budget is no reservation", () => {
    const error = refusal(() => ledgerOf().remainingOf("b", "calories" as never));
    expect(error.message).toBe('remainingOf: unknown budget dimension "calories"');
    expect(error.details).toEqual({ dimension: "calories" });
    expect(refusal(() => createBudgetLedger({ budgetId: 5 as never, limits: {} })).message).toBe("budgetId must be a non-empty string");
    expect(refusal(() => createBudgetLedger({ budgetId: "b", limits: [] as never })).message).toBe("limits: expected an object of amounts");
    expect(ledgerOf().reservation("b")).toBeUndefined();
  });
});

describe("committed: the dimensions a reservation holds, and what its children took of others", () => {
  it("shows a held dimension at zero, leaves out an unheld one until something is committed in it", () => {
    const ledger = createBudgetLedger({ budgetId: "b", limits: { tokens: 1_000 } });
    expect(ledger.snapshot().committed).toEqual({ tokens: 0 });
    ledger.reserve({ reservationId: "r1", parentId: "b", amounts: { tokens: 10, spend: 5 }, attribution: call });
    expect(ledger.committed("r1")).toEqual({ tokens: 0, spend: 0 });
    expect(ledger.snapshot().committed).toEqual({ tokens: 10, spend: 5 });
    // r1 does not hold tool_ops: its child's unit is committed under r1 and under the budget, which holds none either.
    ledger.reserve({ reservationId: "r2", parentId: "r1", amounts: { tool_ops: 1 }, attribution: call });
    expect(ledger.committed("r1")).toEqual({ tokens: 0, spend: 0, tool_ops: 1 });
    expect(ledger.snapshot().committed).toEqual({ tokens: 10, spend: 5, tool_ops: 1 });
    expect(ledger.committed("b")).toEqual({ tokens: 10, spend: 5, tool_ops: 1 });
  });
});

describe("apply: a step journaled twice is taken once; journaled twice differently, refused", () => {
  const reserved = (data: object) => ({ type: "budget.reserved", data }) as unknown as YokeEvent;
  const settled = (data: object) => ({ type: "budget.settled", data }) as unknown as YokeEvent;
  const r1 = { reservationId: "r1", parentId: "b", amounts: { tokens: 100 }, attribution: call };

  it("budget.reserved again with the same fields changes nothing; with another parent, amounts or attribution it is refused", () => {
    const ledger = ledgerOf();
    ledger.reserve({ reservationId: "r0", parentId: "b", amounts: { tokens: 1 }, attribution: call });
    ledger.apply(reserved(r1));
    ledger.apply(reserved(r1));
    expect(ledger.remaining("b")).toEqual({ tokens: 899, tool_ops: 5 });
    for (const other of [
      { ...r1, parentId: "r0" },
      { ...r1, amounts: { tokens: 101 } },
      { ...r1, attribution: { ...call, note: "x" } },
    ]) {
      const error = refusal(() => ledger.apply(reserved(other)));
      expect(error.message).toBe('budget.reserved: reservation "r1" exists already with other fields');
      expect(error.details).toEqual({ reservationId: "r1" });
    }
    expect(ledger.remaining("b")).toEqual({ tokens: 899, tool_ops: 5 });
  });

  it("budget.settled again the same changes nothing; differently (charge, overshoot) it is refused", () => {
    const ledger = ledgerOf();
    ledger.apply(reserved(r1));
    ledger.apply(settled({ reservationId: "r1", charged: { tokens: 40 }, released: { tokens: 60 } }));
    ledger.apply(settled({ reservationId: "r1", charged: { tokens: 40 }, released: { tokens: 60 } }));
    ledger.apply(settled({ reservationId: "r1", charged: { tokens: 40 } }));
    for (const other of [
      { reservationId: "r1", charged: { tokens: 41 } },
      { reservationId: "r1", charged: { tokens: 40 }, released: { tokens: 59 } },
      { reservationId: "r1", charged: { tokens: 40 }, overshoot: true },
    ]) {
      const error = refusal(() => ledger.apply(settled(other)));
      expect(error.message).toBe('budget.settled: reservation "r1" is settled already, differently');
      expect(error.details).toEqual({ reservationId: "r1" });
    }
    const unknown = refusal(() => ledger.apply(settled({ reservationId: "r9", charged: {} })));
    expect(unknown.message).toBe('budget.settled: unknown reservation "r9"');
    expect(ledger.remaining("b")).toEqual({ tokens: 960, tool_ops: 5 });
  });

  it("budget.opened must be this budget with these limits", () => {
    const ledger = ledgerOf();
    const opened = (data: object) => ({ type: "budget.opened", data }) as unknown as YokeEvent;
    ledger.apply(opened({ budgetId: "b", limits: { tool_ops: 5, tokens: 1_000 } }));
    for (const other of [
      { budgetId: "c", limits: { tokens: 1_000, tool_ops: 5 } },
      { budgetId: "b", limits: { tokens: 1_000 } },
    ]) {
      const error = refusal(() => ledger.apply(opened(other)));
      expect(error.message).toBe(`budget.opened: budget "${other.budgetId}" is not this ledger's "b" with its limits`);
      expect(error.details).toEqual({ budgetId: other.budgetId });
    }
  });
});

describe("a charge past what was held, and adding amounts", () => {
  it("a settle over the held amount without { overshoot: true } names the reservation, the dimension and both figures", () => {
    const ledger = ledgerOf();
    ledger.reserve({ reservationId: "r1", parentId: "b", amounts: { tokens: 100 }, attribution: call });
    const error = refusal(() => ledger.settle("r1", { tokens: 150 }));
    expect(error.message).toBe("settle r1: tokens 150 is more than the 100 held; settle the in-flight overshoot with { overshoot: true }");
    expect(error.details).toEqual({ reservationId: "r1", dimension: "tokens", charged: 150, held: 100 });
    expect(ledger.reservation("r1")?.status).toBe("open");
  });

  it("addAmounts sums each dimension over every amount given, keys in code-unit order, a dimension none names absent", () => {
    const sum = addAmounts({ tokens: 1, tool_ops: 2 }, { tokens: 2, spend: 3 }, { wall_time: undefined }, {});
    expect(sum).toEqual({ spend: 3, tokens: 3, tool_ops: 2 });
    expect(Object.keys(sum)).toEqual(["spend", "tokens", "tool_ops"]);
    expect(addAmounts()).toEqual({});
  });
});

describe("the second mutation run's survivors", () => {
  const reserved = (data: object) => ({ type: "budget.reserved", data }) as unknown as YokeEvent;
  const settled = (data: object) => ({ type: "budget.settled", data }) as unknown as YokeEvent;

  it("a request that is a string, an id that is not a string, an unknown parent: each named", () => {
    const ledger = ledgerOf();
    expect(refusal(() => ledger.reserve("r1" as never)).message).toBe("reserve: expected a request object");
    expect(refusal(() => ledger.reserve({ reservationId: 5 as never, parentId: "b", amounts: {}, attribution: call })).message).toBe(
      "reserve: reservationId must be a non-empty string",
    );
    const parent = refusal(() => ledger.reserve({ reservationId: "r1", parentId: "zz", amounts: {}, attribution: call }));
    expect(parent.message).toBe('reserve: unknown reservation "zz"');
    expect(ledger.snapshot().reservations).toEqual([]);
  });

  it("settle's amounts are named by the reservation", () => {
    const ledger = ledgerOf();
    ledger.reserve({ reservationId: "r1", parentId: "b", amounts: { tokens: 10 }, attribution: call });
    expect(refusal(() => ledger.settle("r1", { calories: 1 } as never)).message).toBe('settle r1: unknown budget dimension "calories"');
  });

  it("apply: the budget itself is no reservation to reserve or settle; a reservation that does not fit names its figures", () => {
    const ledger = ledgerOf();
    expect(refusal(() => ledger.apply(reserved({ reservationId: "b", parentId: "b", amounts: {}, attribution: call }))).message).toBe(
      'reserve: reservation "b" exists already',
    );
    expect(refusal(() => ledger.apply(settled({ reservationId: "b", charged: {} }))).message).toBe('settle: "b" is the budget itself, not a reservation');
    const tooBig = refusal(() => ledger.apply(reserved({ reservationId: "r1", parentId: "b", amounts: { tool_ops: 6 }, attribution: call })));
    expect(tooBig.message).toBe('budget.reserved: reservation "r1" does not fit: tool_ops 0 + 6 > 5 under "b"');
    expect(tooBig.details).toEqual({ ok: false, dimension: "tool_ops", reservationId: "b", limit: 5, committed: 0, requested: 6 });
  });

  it("apply takes again a reservation of input tokens alone (its tokens derived), and zeros in a journaled charge or release", () => {
    const ledger = createBudgetLedger({ budgetId: "b", limits: { input_tokens: 100, tokens: 1_000 } });
    const opened = { type: "budget.opened", data: { budgetId: "b", limits: { input_tokens: 100, tokens: 1_000 } } } as unknown as YokeEvent;
    ledger.apply(opened);
    const withInput = { reservationId: "r1", parentId: "b", amounts: { input_tokens: 50 }, attribution: call };
    ledger.apply(reserved(withInput));
    ledger.apply(reserved(withInput));
    expect(ledger.reservation("r1")?.amounts).toEqual({ input_tokens: 50, tokens: 50 });
    // All released: the charge journaled with its zeros, the release with none, and the other way round.
    ledger.apply(settled({ reservationId: "r1", charged: { input_tokens: 0, tokens: 0 }, released: { input_tokens: 50, tokens: 50 } }));
    ledger.apply(reserved({ reservationId: "r2", parentId: "b", amounts: { tokens: 10 }, attribution: call }));
    ledger.apply(settled({ reservationId: "r2", charged: { tokens: 10 }, released: { tokens: 0 } }));
    expect(ledger.remaining("b")).toEqual({ input_tokens: 100, tokens: 990 });
    // Settled again with another charge: refused, naming it.
    const again = refusal(() => ledger.apply(settled({ reservationId: "r2", charged: { tokens: 9 } })));
    expect(again.message).toBe('budget.settled: reservation "r2" is settled already, differently');
  });

  it("apply names a journaled settlement that does not match what the reservation holds, and budget.opened's bad limits", () => {
    const ledger = ledgerOf();
    ledger.apply(reserved({ reservationId: "r1", parentId: "b", amounts: { tokens: 10 }, attribution: call }));
    const error = refusal(() => ledger.apply(settled({ reservationId: "r1", charged: { tokens: 4 }, released: { tokens: 5 } })));
    expect(error.message).toMatch(/^budget\.settled: reservation "r1": the journaled charge and release do not match what it holds/);
    expect(error.details).toEqual({ reservationId: "r1" });
    const opened = { type: "budget.opened", data: { budgetId: "b", limits: { calories: 1 } } } as unknown as YokeEvent;
    expect(refusal(() => ledger.apply(opened)).message).toBe('budget.opened limits: unknown budget dimension "calories"');
    const settledBadly = settled({ reservationId: "r1", charged: { calories: 1 } });
    expect(refusal(() => ledger.apply(settledBadly)).message).toBe('budget.settled charged: unknown budget dimension "calories"');
  });
});
