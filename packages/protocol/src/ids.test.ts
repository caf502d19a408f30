import fc from "fast-check";
import { describe, expect, expectTypeOf, it } from "vitest";
import { steppingClock } from "./clock.js";
import { YokeError } from "./errors.js";
import { idSchema, newId, parseId, sequentialIdSource, ulidIdSource, type ActionId, type RunId } from "./ids.js";
import type { ToolCallContext } from "./tool-declaration.js";

describe("id sources", () => {
  it("sequential ids are deterministic and sort in creation order", () => {
    const a = sequentialIdSource();
    const b = sequentialIdSource();
    const fromA = Array.from({ length: 20 }, () => newId(a, "run"));
    expect(Array.from({ length: 20 }, () => newId(b, "run"))).toEqual(fromA);
    expect([...fromA].sort()).toEqual(fromA);
    expect(fromA[0]).toBe("run_00000000000001");
  });

  it("ULIDs sort in creation order, also within one millisecond", () => {
    fc.assert(
      fc.property(fc.array(fc.nat(3), { minLength: 1, maxLength: 200 }), fc.integer({ min: 1, max: 2 ** 31 }), (steps, seed) => {
        let state = seed;
        const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
        const clock = steppingClock(1_700_000_000_000, 0);
        const source = ulidIdSource({ clock, random });
        const ids = steps.map((step) => {
          clock.advance(step);
          return newId(source, "action");
        });
        expect([...ids].sort()).toEqual(ids);
        expect(new Set(ids).size).toBe(ids.length);
      }),
    );
  });

  it("same clock and randomness give the same ids", () => {
    const make = () => ulidIdSource({ clock: steppingClock(5, 1), random: () => 0.5 });
    const first = make();
    const second = make();
    expect(newId(first, "turn")).toBe(newId(second, "turn"));
  });

  it("parses and validates ids by kind", () => {
    expect(parseId("run", "run_abc")).toBe("run_abc");
    expect(() => parseId("run", "turn_abc")).toThrow(YokeError);
    expect(() => parseId("run", "run_")).toThrow(YokeError);
    expect(idSchema("tenant").safeParse("tenant_x").success).toBe(true);
    expect(idSchema("tenant").safeParse("run_x").success).toBe(false);
  });
});

describe("ids at the public boundary", () => {
  it("are plain strings: an id read from a database or a CLI argument needs no cast", () => {
    const fromDatabase: string = "action_01";
    const context: Pick<ToolCallContext, "actionId" | "attemptId"> = { actionId: fromDatabase, attemptId: "attempt_01" };
    expectTypeOf(context.actionId).toEqualTypeOf<string>();
    expectTypeOf<RunId>().toEqualTypeOf<string>();
    expectTypeOf<ActionId>().toEqualTypeOf<string>();
    const minted = newId(sequentialIdSource(), "run");
    expectTypeOf(minted).toEqualTypeOf<string>();
    expectTypeOf(parseId("run", minted)).toEqualTypeOf<string>();
    expect(parseId("run", minted)).toBe(minted);
  });
});
