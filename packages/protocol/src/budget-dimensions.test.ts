import { describe, expect, it } from "vitest";
import { BUDGET_DIMENSION_SPECS, BUDGET_DIMENSIONS, unknownBudgetDimensions } from "./budget-dimensions.js";
import { BudgetAmountsSchema, BudgetDimensionSchema, BudgetReservationSchema } from "./budget.js";
import { isBudgetAmounts } from "./budget-fast.js";
import { EVENT_SCHEMA_VERSION, GENESIS_HASH, parseYokeEvent, type JournalEvent } from "./events.js";
import { YokeError } from "./errors.js";

const NAMES = BUDGET_DIMENSION_SPECS.map((spec) => spec.name);

describe("one list of budget dimensions", () => {
  it("BUDGET_DIMENSIONS, the dimension enum and the amounts schema are its names, in its order", () => {
    expect(BUDGET_DIMENSIONS).toEqual(NAMES);
    expect(BudgetDimensionSchema.options).toEqual(NAMES);
    expect(Object.keys(BudgetAmountsSchema.shape)).toEqual(NAMES);
    expect(new Set(NAMES).size).toBe(NAMES.length);
  });

  it("every dimension is accepted alone by the schema and by the fast event check, and parses in list order", () => {
    for (const name of NAMES) {
      expect(BudgetAmountsSchema.parse({ [name]: 1 }), name).toEqual({ [name]: 1 });
      expect(isBudgetAmounts({ [name]: 1 }), name).toBe(true);
    }
    const reversed = Object.fromEntries([...NAMES].reverse().map((name, index) => [name, index]));
    expect(Object.keys(BudgetAmountsSchema.parse(reversed))).toEqual(NAMES);
  });

  it("no dimension is newer than the event schema this reader knows (a new one comes with a version bump)", () => {
    for (const spec of BUDGET_DIMENSION_SPECS) expect(spec.since, spec.name).toBeLessThanOrEqual(EVENT_SCHEMA_VERSION);
    expect(BUDGET_DIMENSION_SPECS.filter((spec) => spec.kind === "gauge").map((spec) => spec.name)).toEqual(["concurrency"]);
  });
});

describe("a journal naming a dimension this reader does not know", () => {
  const base: Omit<JournalEvent, "type" | "data"> = {
    schemaVersion: EVENT_SCHEMA_VERSION,
    tenantId: "tenant_a",
    runId: "run_1",
    seq: 5,
    at: 0,
    causationId: null,
    prevHash: GENESIS_HASH,
    hash: GENESIS_HASH,
  };
  const attribution = { kind: "model_call", runId: "run_1", turnId: "turn_1" };
  const refusal = (type: string, data: Record<string, unknown>) => {
    try {
      parseYokeEvent({ ...base, type, data } as JournalEvent);
    } catch (error) {
      return error;
    }
    return expect.unreachable("the event was read");
  };

  it("written by a newer schema version: refused as a whole (JOURNAL_SCHEMA_UNSUPPORTED names the version it needs)", () => {
    const newer = () =>
      parseYokeEvent({ ...base, schemaVersion: EVENT_SCHEMA_VERSION + 1, type: "budget.opened", data: { budgetId: "b", limits: { gpu_seconds: 10 } } });
    expect(newer).toThrow(
      expect.objectContaining({
        code: "JOURNAL_SCHEMA_UNSUPPORTED",
        details: { seq: 5, schemaVersion: EVENT_SCHEMA_VERSION + 1, supported: EVENT_SCHEMA_VERSION },
      }),
    );
  });

  it.each([
    ["budget.opened", { budgetId: "b", limits: { spend: 10, gpu_seconds: 10 } }],
    ["budget.reserved", { reservationId: "r", parentId: "b", amounts: { gpu_seconds: 1 }, attribution }],
    ["budget.settled", { reservationId: "r", charged: { tokens: 1 }, released: { gpu_seconds: 1 } }],
    [
      "model.requested",
      { turnId: "turn_1", requestHash: "0".repeat(64), messageCount: 1, reserved: { reservationId: "r", parentId: "b", amounts: { gpu_seconds: 1 } } },
    ],
    [
      "action.committed",
      { actionId: "a", attemptId: "at", result: { content: "ok", isError: false }, settled: { reservationId: "r", charged: { gpu_seconds: 1 } } },
    ],
  ])("at a known version: %s is refused (EVENT_INVALID naming the dimension), never read with it dropped", (type, data) => {
    const error = refusal(type, data);
    expect(YokeError.hasCode(error, "EVENT_INVALID")).toBe(true);
    expect((error as YokeError).details).toEqual({ seq: 5, type, unknownDimensions: ["gpu_seconds"] });
  });

  it("other invalid data keeps the details it always had", () => {
    const error = refusal("budget.reserved", { reservationId: "", parentId: "b", amounts: { spend: 1 }, attribution });
    expect((error as YokeError).details).toEqual({ seq: 5, type: "budget.reserved" });
  });

  it("unknownBudgetDimensions reads only amounts members", () => {
    const issues = BudgetReservationSchema.safeParse({ reservationId: "r", parentId: "b", amounts: { z: 1, a: 2 }, attribution: { ...attribution, extra: 1 } })
      .error!.issues;
    expect(unknownBudgetDimensions(issues)).toEqual(["a", "z"]);
  });
});
