import { YokeError } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { seededRandom } from "./prng.js";
import { createVirtualTime } from "./virtual-time.js";

const START = 1_000_000;

describe("virtual time", () => {
  it("moves the clock only when a timer fires, to that timer's moment", async () => {
    const time = createVirtualTime({ start: START, random: seededRandom(1) });
    const seen = await time.run(async () => {
      const before = time.clock.now();
      await time.sleep(5_000);
      const after = time.clock.now();
      await time.sleep(0);
      return [before, after, time.clock.now()];
    });
    expect(seen).toEqual([START, START + 5_000, START + 5_000]);
  });

  it("fires timers in due order; cleared ones never", async () => {
    const time = createVirtualTime({ start: 0, random: seededRandom(1) });
    const order: string[] = [];
    await time.run(async () => {
      time.timers.setTimeout(() => order.push("late"), 30);
      const cleared = time.timers.setTimeout(() => order.push("cleared"), 10);
      time.timers.setTimeout(() => order.push("early"), 20);
      time.timers.clearTimeout(cleared);
      await time.sleep(40);
    });
    expect(order).toEqual(["early", "late"]);
    expect(time.pending()).toBe(0);
  });

  it("orders timers due together by the seed: the same for one seed, another for others", async () => {
    const orderFor = async (seed: number) => {
      const time = createVirtualTime({ start: 0, random: seededRandom(seed) });
      const order: number[] = [];
      await time.run(() => Promise.all(Array.from({ length: 6 }, (_, index) => time.sleep(10).then(() => order.push(index)))));
      return order.join(",");
    };
    expect(await orderFor(3)).toBe(await orderFor(3));
    const orders = new Set(await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map(orderFor)));
    expect(orders.size).toBeGreaterThan(1);
  });

  it("cancels a sleep whose signal aborts, with CANCELLED", async () => {
    const time = createVirtualTime({ start: 0, random: seededRandom(1) });
    const controller = new AbortController();
    const outcome = await time.run(async () => {
      time.timers.setTimeout(() => controller.abort(), 5);
      return time.sleep(100, controller.signal).then(
        () => "slept",
        (error: unknown) => (YokeError.hasCode(error, "CANCELLED") ? `cancelled at ${time.clock.now()}` : "other"),
      );
    });
    expect(outcome).toBe("cancelled at 5");
  });

  it("reports work waiting on nothing in the world as stuck, and endless timers as not finishing", async () => {
    const stuck = createVirtualTime({ start: 0, random: seededRandom(1) });
    await expect(stuck.run(() => new Promise(() => undefined))).rejects.toMatchObject({ code: "TESTKIT_EXPECTATION_FAILED" });
    const endless = createVirtualTime({ start: 0, random: seededRandom(1), maxFires: 50 });
    const tick = () => endless.timers.setTimeout(tick, 1);
    await expect(
      endless.run(() => {
        tick();
        return new Promise(() => undefined);
      }),
    ).rejects.toThrow(/did not finish within 50 timer firings/);
  });

  it("passes the work's own error through", async () => {
    const time = createVirtualTime({ start: 0, random: seededRandom(1) });
    await expect(time.run(async () => Promise.reject(new YokeError("INTERNAL", "boom")))).rejects.toThrow("boom");
  });
});
