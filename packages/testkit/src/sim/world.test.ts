import { YokeError, type JournalV1 } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { crashingJournal, isSimulatedCrash } from "./crash-in-process.js";
import { simulationPlanFromEnv } from "./sim-env.js";
import { MAX_WORLD_SIZE, createWorld } from "./world.js";

const callsOf = (seed: number, size: number) =>
  createWorld(seed, size).model.script.reduce((sum, turn) => sum + (turn.kind === "calls" ? turn.calls.length : 0), 0);

describe("createWorld", () => {
  it("draws the same world from the same seed and size", () => {
    for (const seed of [0, 1, 77, 123_456]) {
      const a = createWorld(seed, MAX_WORLD_SIZE);
      const b = createWorld(seed, MAX_WORLD_SIZE);
      expect(a.description).toEqual(b.description);
      expect(a.model.script).toEqual(b.model.script);
      expect(a.crash).toEqual(b.crash);
      expect(a.interrupts).toEqual(b.interrupts);
      expect([0, 1, 2, 3].map(a.grants)).toEqual([0, 1, 2, 3].map(b.grants));
    }
  });

  it("draws smaller worlds at smaller sizes: size 1 has one turn of one call, no crash, interrupt, approval or budget", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const world = createWorld(seed, 1);
      expect(callsOf(seed, 1)).toBeLessThanOrEqual(1);
      expect(world.crash).toBeUndefined();
      expect(world.interrupts).toEqual([]);
      expect(world.policy).toBeUndefined();
      expect(world.budget).toBeUndefined();
    }
    const total = (size: number) => Array.from({ length: 200 }, (_, seed) => callsOf(seed, size)).reduce((a, b) => a + b, 0);
    expect(total(2)).toBeLessThan(total(MAX_WORLD_SIZE));
  });

  it("refuses a seed or size it cannot draw, with CONFIG_INVALID", () => {
    for (const [seed, size] of [
      [-1, 1],
      [1.5, 1],
      [Number.NaN, 1],
      [1, 0],
      [1, MAX_WORLD_SIZE + 1],
      [1, 2.5],
    ] as const) {
      expect(() => createWorld(seed, size)).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    }
  });
});

describe("simulationPlanFromEnv", () => {
  it("runs the default count, a soak of N seeds, or one seed, at the size asked", () => {
    expect(simulationPlanFromEnv(1_000, {})).toEqual({ count: 1_000, size: MAX_WORLD_SIZE });
    expect(simulationPlanFromEnv(1_000, { YOKE_SIM_SEEDS: "10000" })).toEqual({ count: 10_000, size: MAX_WORLD_SIZE });
    expect(simulationPlanFromEnv(1_000, { YOKE_SIM_SEED: "1234", YOKE_SIM_SIZE: "2" })).toEqual({ seeds: [1234], size: 2 });
  });

  it("refuses a malformed value with CONFIG_INVALID naming the variable, never running the default instead", () => {
    for (const env of [{ YOKE_SIM_SEED: "12a" }, { YOKE_SIM_SEEDS: "0" }, { YOKE_SIM_SEEDS: "-3" }, { YOKE_SIM_SIZE: "99" }, { YOKE_SIM_SEED: "1e3" }]) {
      const name = Object.keys(env)[0]!;
      expect(() => simulationPlanFromEnv(1_000, env)).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", details: { option: name } }));
    }
  });
});

describe("crashingJournal", () => {
  function stubJournal(): JournalV1 & { written: number } {
    let written = 0;
    return {
      specificationVersion: "v1",
      capabilities: { durable: true, multiProcess: false },
      get written() {
        return written;
      },
      append: async (_scope, expectedSeq, drafts) => {
        written += 1;
        return { firstSeq: expectedSeq, lastSeq: expectedSeq + drafts.length - 1, headHash: "h" } as never;
      },
      read: async function* () {},
      head: async () => null,
      verify: async () => ({ ok: true, events: 0, headHash: "h" }) as never,
      listRuns: async function* () {},
      close: async () => undefined,
    };
  }
  const scope = { tenantId: "t", runId: "r" };

  for (const mode of ["lost", "written"] as const) {
    it(`dies at the k-th append (${mode}) and makes no call after it`, async () => {
      const inner = stubJournal();
      const dying = crashingJournal(inner, { append: 2, mode });
      await dying.append(scope, 0, []);
      const crash = await dying.append(scope, 1, []).catch((error: unknown) => error);
      expect(isSimulatedCrash(crash)).toBe(true);
      expect(YokeError.isInstance(crash) && crash.details).toMatchObject({ append: 2, mode });
      expect(inner.written).toBe(mode === "written" ? 2 : 1);
      expect(dying.crashed).toBe(true);
      await expect(dying.head(scope)).rejects.toSatisfy(isSimulatedCrash);
      await expect(dying.append(scope, 2, [])).rejects.toSatisfy(isSimulatedCrash);
      expect(inner.written).toBe(mode === "written" ? 2 : 1);
    });
  }

  it("is not mistaken for another INTERNAL error", () => {
    expect(isSimulatedCrash(new YokeError("INTERNAL", "a bug"))).toBe(false);
    expect(isSimulatedCrash(new Error("simulated crash"))).toBe(false);
  });
});
