// The scheduler's idempotent call over the journal's memory idempotency store: two layers
// composed, so the test lives in the runtime (DESIGN.md: only the runtime composes layers).
import { createMemoryIdempotencyStore } from "@yoke/journal";
import { YokeError, steppingClock } from "@yoke/protocol";
import { argumentDigest, callIdempotently } from "@yoke/scheduler";
import { describe, expect, it } from "vitest";

const clock = steppingClock(0, 1);

describe("callIdempotently", () => {
  it("32 concurrent submissions of one key run the effect once; all get its outcome", async () => {
    const store = createMemoryIdempotencyStore();
    let runs = 0;
    const effect = async () => {
      runs += 1;
      await new Promise<void>((resolve) => setImmediate(resolve));
      return { charged: 100 };
    };
    const outcomes = await Promise.all(
      Array.from({ length: 32 }, () => callIdempotently({ store, tenantId: "t", key: "action_1", args: { cents: 100 }, clock }, effect)),
    );
    expect(runs).toBe(1);
    expect(new Set(outcomes.map((outcome) => JSON.stringify(outcome)))).toEqual(new Set([JSON.stringify({ status: "succeeded", value: { charged: 100 } })]));
  });

  it("replays a stored failure without running again; other arguments under the key are IDEMPOTENCY_KEY_REUSED", async () => {
    const store = createMemoryIdempotencyStore();
    let runs = 0;
    const failing = async () => {
      runs += 1;
      throw new YokeError("TOOL_FAILED", "card declined");
    };
    const options = { store, tenantId: "t", key: "action_2", args: { a: 1, b: 2 }, clock };
    const first = await callIdempotently(options, failing);
    const again = await callIdempotently({ ...options, args: { b: 2, a: 1 } }, failing); // same arguments, other key order
    expect([first, again]).toEqual([
      { status: "failed", error: { code: "TOOL_FAILED", message: "card declined" } },
      { status: "failed", error: { code: "TOOL_FAILED", message: "card declined" } },
    ]);
    expect(runs).toBe(1);
    const reused = await callIdempotently({ ...options, args: { a: 2 } }, failing).catch((error: unknown) => error);
    expect(YokeError.hasCode(reused, "IDEMPOTENCY_KEY_REUSED")).toBe(true);
    expect(argumentDigest({ a: 1, b: 2 })).toBe(argumentDigest({ b: 2, a: 1 }));
  });
});
