import { type ChargeAttribution, YokeError } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { eventsOf } from "./__fixtures__/events.js";
import { createBudgetLedger, foldBudget, openedData } from "./index.js";

const call: ChargeAttribution = { kind: "model_call", runId: "run-1" };

describe("apply and foldBudget", () => {
  it("folding the events a ledger returned rebuilds the same ledger", () => {
    const live = createBudgetLedger({ budgetId: "b", limits: { tokens: 1_000, concurrency: 2 } });
    const drafts: { type: string; data: object }[] = [
      { type: "run.started", data: {} },
      { type: "budget.opened", data: live.opened() },
    ];
    const reserve = (request: Parameters<typeof live.reserve>[0]) => {
      expect(live.reserve(request).ok).toBe(true);
      drafts.push({ type: "budget.reserved", data: request });
    };
    reserve({ reservationId: "r1", parentId: "b", amounts: { tokens: 500, concurrency: 1 }, attribution: call });
    reserve({ reservationId: "r2", parentId: "r1", amounts: { tokens: 100 }, attribution: call });
    drafts.push({ type: "budget.settled", data: live.settle("r2", { tokens: 150 }, { overshoot: true }) });
    reserve({ reservationId: "r3", parentId: "b", amounts: { tokens: 100 }, attribution: call });
    drafts.push({ type: "budget.settled", data: live.release("r3") });
    const folded = foldBudget(eventsOf("run-1", drafts));
    expect(folded?.snapshot()).toEqual(live.snapshot());
    expect(folded?.openReservations().map((view) => view.reservationId)).toEqual(["r1"]);
  });

  it("ignores other events, and is undefined for a run that opened no budget", () => {
    expect(foldBudget(eventsOf("run-1", [{ type: "run.started", data: {} }]))).toBeUndefined();
    expect(() => foldBudget(eventsOf("run-1", [{ type: "budget.settled", data: { reservationId: "r", charged: {}, released: {} } }]))).toThrow(
      /before budget.opened/,
    );
  });

  it("applying an event the ledger holds already, identically, is a no-op; a contradicting one is BUDGET_INVALID and changes nothing", () => {
    const ledger = createBudgetLedger({ budgetId: "b", limits: { tokens: 100 } });
    const request = { reservationId: "r1", parentId: "b", amounts: { tokens: 60 }, attribution: call };
    ledger.reserve(request);
    const [opened, reserved] = eventsOf("run-1", [
      { type: "budget.opened", data: ledger.opened() },
      { type: "budget.reserved", data: request },
    ]);
    ledger.apply(opened!);
    ledger.apply(reserved!);
    const before = ledger.snapshot();
    const bad = (type: string, data: object, message: RegExp) => {
      expect(() => ledger.apply(eventsOf("run-1", [{ type, data }])[0]!)).toThrow(message);
      try {
        ledger.apply(eventsOf("run-1", [{ type, data }])[0]!);
      } catch (error) {
        expect(YokeError.hasCode(error, "BUDGET_INVALID")).toBe(true);
      }
      expect(ledger.snapshot()).toEqual(before);
    };
    bad("budget.opened", { budgetId: "other", limits: { tokens: 100 } }, /not this ledger/);
    bad("budget.opened", { budgetId: "b", limits: { tokens: 101 } }, /not this ledger/);
    bad("budget.reserved", { ...request, amounts: { tokens: 61 } }, /exists already with other fields/);
    bad("budget.reserved", { ...request, reservationId: "r2" }, /does not fit: tokens 60 \+ 60 > 100/);
    bad("budget.settled", { reservationId: "r9", charged: {}, released: {} }, /unknown reservation/);
    bad("budget.settled", { reservationId: "r1", charged: { tokens: 10 }, released: { tokens: 40 } }, /do not match/);
    bad("budget.settled", { reservationId: "r1", charged: { tokens: 70 }, released: {} }, /overshoot/);
    const settled = ledger.settle("r1", { tokens: 10 });
    ledger.apply(eventsOf("run-1", [{ type: "budget.settled", data: settled }])[0]!);
    expect(() => ledger.apply(eventsOf("run-1", [{ type: "budget.settled", data: { ...settled, charged: { tokens: 11 } } }])[0]!)).toThrow(
      /settled already, differently/,
    );
  });

  it("a carried settlement without `released` is checked on `charged` alone: applied, re-applied as a no-op, contradicted as BUDGET_INVALID", () => {
    const ledger = createBudgetLedger({ budgetId: "b", limits: { tokens: 100, concurrency: 2 } });
    const carrier = (settled: object) => eventsOf("run-1", [{ type: "action.committed", data: { settled } }])[0]!;
    const folded = createBudgetLedger({ budgetId: "b", limits: { tokens: 100, concurrency: 2 } });
    const request = { reservationId: "r1", parentId: "b", amounts: { tokens: 60, concurrency: 1 }, attribution: call };
    ledger.reserve(request);
    folded.reserve(request);
    const before = folded.snapshot();
    // Charged past what is held without the overshoot mark: refused, nothing changes.
    expect(() => folded.apply(carrier({ reservationId: "r1", charged: { tokens: 70 } }))).toThrow(/overshoot/);
    expect(folded.snapshot()).toEqual(before);
    const settled = ledger.settle("r1", { tokens: 10 });
    folded.apply(carrier({ reservationId: "r1", charged: settled.charged }));
    // What it released is worked out: the same ledger as the writer's.
    expect(folded.snapshot()).toEqual(ledger.snapshot());
    expect(folded.reservation("r1")).toMatchObject({ charged: { tokens: 10 }, released: { concurrency: 1, tokens: 50 } });
    folded.apply(carrier({ reservationId: "r1", charged: settled.charged }));
    expect(() => folded.apply(carrier({ reservationId: "r1", charged: { tokens: 11 } }))).toThrow(/settled already, differently/);
    expect(() => folded.apply(carrier({ reservationId: "r1", charged: settled.charged, overshoot: true }))).toThrow(/settled already, differently/);
    expect(folded.snapshot()).toEqual(ledger.snapshot());
  });

  it("openedData names the pricing table by id, revision and currency, and a child run's parent", () => {
    const table = { version: 1 as const, id: "p", currency: "USD", models: [{ provider: "openai", model: "gpt-4.1", input: 2_000_000, output: 8_000_000 }] };
    const data = openedData({ budgetId: "b", limits: { spend: 5 }, pricing: table, parent: { runId: "run-0", actionId: "a", reservationId: "r" } });
    expect(data).toEqual({
      budgetId: "b",
      limits: { spend: 5 },
      pricing: { id: "p", revision: expect.stringMatching(/^[0-9a-f]{64}$/), currency: "USD" },
      parent: { runId: "run-0", actionId: "a", reservationId: "r" },
    });
    expect(openedData({ budgetId: "b", limits: {} })).toEqual({ budgetId: "b", limits: {} });
  });
});
