import { steppingClock, type ToolAccess } from "@yoke/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { neverTimers } from "./__fixtures__/manual-timers.js";
import { declaration } from "./__fixtures__/tools.js";
import { conflictPredecessors, conflicts, defaultAccess } from "./conflicts.js";
import { executeBatch, type DispatchItem } from "./execute-batch.js";

describe("conflicts", () => {
  it("two reads never conflict; a write conflicts with a read or write of the same resource", () => {
    expect(conflicts({ reads: ["a"], writes: [] }, { reads: ["a"], writes: [] })).toBe(false);
    expect(conflicts({ reads: ["a"], writes: [] }, { reads: [], writes: ["a"] })).toBe(true);
    expect(conflicts({ reads: [], writes: ["a"] }, { reads: [], writes: ["a"] })).toBe(true);
    expect(conflicts({ reads: [], writes: ["a"] }, { reads: ["b"], writes: ["c"] })).toBe(false);
    expect(conflicts(defaultAccess("idempotent"), { reads: ["x"], writes: [] })).toBe(true);
    expect(conflicts(defaultAccess("none"), defaultAccess("none"))).toBe(false);
  });

  it("a call waits for every earlier call it conflicts with, and only those", () => {
    expect(
      conflictPredecessors([
        { reads: ["a"], writes: [] },
        { reads: [], writes: ["a"] },
        { reads: ["b"], writes: [] },
        { reads: ["a"], writes: [] },
      ]),
    ).toEqual([[], [0], [], [1]]);
  });
});

const resource = fc.constantFrom("r1", "r2", "r3", "r4");
const access: fc.Arbitrary<ToolAccess> = fc.record({
  reads: fc.uniqueArray(resource, { maxLength: 2 }),
  writes: fc.uniqueArray(resource, { maxLength: 2 }),
});

describe("conflict-aware batches (property)", () => {
  it("every conflicting pair runs in proposal order; every call starts as soon as its conflicts end", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(access, { minLength: 1, maxLength: 7 }), fc.scheduler(), async (accesses, s) => {
        const log: string[] = [];
        const items: DispatchItem[] = accesses.map((set, index) => ({
          // Each handler finishes when the fast-check scheduler says: random durations, no clock.
          tool: declaration({ name: `t${index}`, access: () => set, execute: () => s.schedule(Promise.resolve("ok"), `t${index}`) }),
          input: {},
          actionId: `action_${index}`,
          attemptId: `attempt_${index}`,
          attempt: 1,
          deadlineAt: Number.MAX_SAFE_INTEGER,
        }));
        const running = executeBatch(items, {
          clock: steppingClock(0, 0),
          timers: neverTimers,
          onDispatch: (index, phase) => log.push(`${phase}:${index}`),
        });
        await s.waitFor(running);
        const outcomes = await running;
        expect(outcomes.every((outcome) => outcome.kind === "committed")).toBe(true);

        const at = (entry: string) => log.indexOf(entry);
        const before = conflictPredecessors(accesses);
        for (let later = 0; later < accesses.length; later++) {
          for (let earlier = 0; earlier < later; earlier++) {
            if (conflicts(accesses[earlier]!, accesses[later]!)) expect(at(`end:${earlier}`)).toBeLessThan(at(`start:${later}`));
          }
          // No handler ended between the moment this call could start and its start: calls
          // that conflict with nothing outstanding overlap instead of waiting.
          const ready = Math.max(-1, ...before[later]!.map((earlier) => at(`end:${earlier}`)));
          const between = log.slice(ready + 1, at(`start:${later}`));
          expect(between.filter((entry) => entry.startsWith("end:"))).toEqual([]);
        }
      }),
      { numRuns: process.env.YOKE_SOAK === "1" ? 3_000 : 200 },
    );
  });
});
