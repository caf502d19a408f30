import { BUDGET_DIMENSION_SPECS, BUDGET_DIMENSIONS } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { DIMENSION_COUNT, GAUGE, emptyVector, indexOf, toAmounts, toVector, zeros } from "./amounts.js";

describe("vectors", () => {
  it("the vectors have one entry per budget dimension", () => {
    expect(DIMENSION_COUNT).toBe(BUDGET_DIMENSIONS.length);
    expect(emptyVector()).toEqual(BUDGET_DIMENSIONS.map(() => undefined));
    expect(zeros()).toEqual(BUDGET_DIMENSIONS.map(() => 0));
  });

  it("indexOf gives each dimension its index in BUDGET_DIMENSIONS, and -1 for anything else", () => {
    for (const [index, dimension] of BUDGET_DIMENSIONS.entries()) expect(indexOf(dimension), dimension).toBe(index);
    for (const other of ["", "Turns", "toString", "__proto__", "constructor", 3, undefined, null]) expect(indexOf(other), String(other)).toBe(-1);
  });

  it("the gauges are the dimensions the list declares a gauge (released whole, never charged)", () => {
    expect(GAUGE).toEqual(BUDGET_DIMENSION_SPECS.map((spec) => spec.kind === "gauge"));
    expect(GAUGE[indexOf("concurrency")]).toBe(true);
  });

  it("each call makes a new vector (the ledger writes into them)", () => {
    const first = zeros();
    first[0] = 5;
    expect(zeros()[0]).toBe(0);
    const empty = emptyVector();
    empty[0] = 5;
    expect(emptyVector()[0]).toBeUndefined();
  });

  it("every dimension goes through toVector and back", () => {
    const amounts = Object.fromEntries(BUDGET_DIMENSIONS.map((dimension, index) => [dimension, index + 1]));
    expect(toAmounts(toVector(amounts, "all", false))).toEqual(amounts);
  });
});
