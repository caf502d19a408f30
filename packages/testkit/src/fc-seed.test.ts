// The run's fast-check seed (scripts/vitest-fc-seed.ts, YOKE_FC_SEED) reaches every property:
// the same seed gives the same cases, and a failure reports that seed.
import fc from "fast-check";
import { describe, expect, it } from "vitest";

describe("fast-check seeding", () => {
  const seed = Number(process.env.YOKE_FC_SEED);

  it("runs every property of this run with the seed in YOKE_FC_SEED", () => {
    expect(Number.isSafeInteger(seed)).toBe(true);
    expect(fc.readConfigureGlobal().seed).toBe(seed);
    const drawn: number[] = [];
    fc.assert(
      fc.property(fc.integer(), (value) => void drawn.push(value)),
      { numRuns: 20 },
    );
    const replayed: number[] = [];
    fc.assert(
      fc.property(fc.integer(), (value) => void replayed.push(value)),
      { numRuns: 20, seed },
    );
    expect(drawn).toEqual(replayed);
  });

  it("names the seed and path of a failure, and the same seed finds the same counterexample", () => {
    const property = fc.property(fc.array(fc.nat()), (values) => values.reduce((sum, value) => sum + value, 0) < 100);
    const first = fc.check(property, { numRuns: 200 });
    const again = fc.check(property, { numRuns: 200, seed });
    expect(first.seed).toBe(seed);
    expect(again.counterexample).toEqual(first.counterexample);
    expect(first.failed).toBe(true);
    expect(first.counterexamplePath).toEqual(again.counterexamplePath);
    expect(() => fc.assert(property, { numRuns: 200 })).toThrow(`{ seed: ${seed}, path: "${first.counterexamplePath}"`);
  });
});
