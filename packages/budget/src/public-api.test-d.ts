// The public API's types: what the ledger returns is the data of the events a writer journals.
import type { BudgetLedgerV1, EventData, EventDraft } from "@yoke/protocol";
import { expectTypeOf, test } from "vitest";
import { type BudgetLedger, createBudgetLedger, openedData } from "./index.js";

test("a BudgetLedger is a BudgetLedgerV1, and its results are budget.* event data", () => {
  const ledger = createBudgetLedger({ budgetId: "b", limits: {} });
  expectTypeOf(ledger).toExtend<BudgetLedgerV1>();
  expectTypeOf<ReturnType<BudgetLedger["settle"]>>().toExtend<EventData<"budget.settled">>();
  expectTypeOf<ReturnType<BudgetLedger["release"]>>().toExtend<EventData<"budget.settled">>();
  expectTypeOf(ledger.opened()).toExtend<EventData<"budget.opened">>();
  expectTypeOf(openedData({ budgetId: "b", limits: {} })).toExtend<EventData<"budget.opened">>();
  // Journal-ready: each fits an EventDraft's data as is.
  expectTypeOf(ledger.settle("r", {})).toExtend<EventDraft["data"]>();
  // @ts-expect-error an unknown dimension
  ledger.reserve({ reservationId: "r", parentId: "b", amounts: { dollars: 1 }, attribution: { kind: "run", runId: "x" } });
});
