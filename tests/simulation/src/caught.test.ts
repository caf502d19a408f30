import { YokeError } from "@yoke/protocol";
import { WORLD_INVARIANTS, createWorld, runSeed, simulate, type SeedRun, type SimWorld } from "@yoke/testkit/sim";
import { describe, expect, it } from "vitest";
import { driveWorld, type DrivenWorld } from "./drive.ts";

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];

async function failureOf(promise: Promise<unknown>): Promise<YokeError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!YokeError.hasCode(error, "TESTKIT_EXPECTATION_FAILED")) throw new Error(`expected a simulation failure, got ${String(error)}`);
  return error;
}

/** A world whose tools are wrapped by `wrap` (same seed, same everything else). */
const worldWith =
  (wrap: (world: SimWorld, tool: SimWorld["tools"][number]) => SimWorld["tools"][number]) =>
  (seed: number, size: number): SimWorld => {
    const world = createWorld(seed, size);
    return { ...world, tools: world.tools.map((tool) => wrap(world, tool)) };
  };

const calls = (world: SimWorld) => world.model.script.reduce((sum, turn) => sum + (turn.kind === "calls" ? turn.calls.length : 0), 0);

describe("what the simulation catches", () => {
  it("a tool that reads a counter shared across runs is caught by the twice-run check, naming the seed and the first differing seq", async () => {
    let counter = 0;
    const leaky = worldWith((_world, tool) => ({
      ...tool,
      async execute(input, context) {
        const output = await tool.execute(input, context);
        counter += 1;
        return typeof output === "string" ? `${output} #${counter}` : { ...output, content: `${String(output.content)} #${counter}` };
      },
    }));
    const error = await failureOf(simulate({ seeds: SEEDS, world: leaky, drive: driveWorld, invariants: WORLD_INVARIANTS }));
    expect(error.details.kind).toBe("nondeterministic");
    const seed = error.details.seed as number;
    expect(SEEDS).toContain(seed);
    expect(error.details.seq).toBeGreaterThan(0);
    expect(error.message).toContain(
      `simulation: seed ${seed} failed: two runs of the same seed journaled different bytes, first at run_sim seq ${error.details.seq}`,
    );
    expect(error.message).toContain(`reproduce: YOKE_SIM_SEED=${seed}`);
    // The honest tools give the same seeds byte-identical journals: the counter is the cause.
    await expect(simulate({ seeds: SEEDS, drive: driveWorld, invariants: WORLD_INVARIANTS })).resolves.toMatchObject({ seeds: SEEDS.length });
  });

  it("a tool that applies its effect twice under one key is caught by noDuplicatedEffects", async () => {
    const doubling = worldWith((world, tool) =>
      tool.sideEffect === "none"
        ? tool
        : {
            ...tool,
            async execute(input, context) {
              const output = await tool.execute(input, context);
              world.ledger.apply({ resource: input.resource, key: context.idempotencyKey, value: input.value });
              return output;
            },
          },
    );
    const error = await failureOf(simulate({ seeds: SEEDS, world: doubling, drive: driveWorld, invariants: WORLD_INVARIANTS }));
    expect(error.details).toMatchObject({ kind: "invariant", invariant: "noDuplicatedEffects" });
    expect(error.message).toMatch(/invariant noDuplicatedEffects: TESTKIT_EXPECTATION_FAILED effects applied more than once: action_/);
  });

  it("shrinks a failure: a deliberately broken invariant fails, and the case reported is smaller than the original and fails the same way", async () => {
    function atMostOneToolCall(run: SeedRun): void {
      const proposed = run.events.filter((event) => event.type === "action.admitted" || event.type === "action.proposed").length;
      if (proposed > 1) throw new YokeError("TESTKIT_EXPECTATION_FAILED", `atMostOneToolCall: ${proposed} calls`);
    }
    const options = { from: 1, count: 50, drive: driveWorld, invariants: [atMostOneToolCall] };
    const error = await failureOf(simulate(options));
    const { seed, size, originalSize } = error.details as { seed: number; size: number; originalSize: number };
    expect(originalSize).toBe(8);
    expect(size).toBeLessThan(originalSize);
    expect(calls(createWorld(seed, size))).toBeLessThan(calls(createWorld(seed, originalSize)));
    expect(error.message).toContain(`shrunk to size ${size} (from 8)`);
    expect(error.message).toContain(`reproduce: YOKE_SIM_SEED=${seed} YOKE_SIM_SIZE=${size} pnpm --filter @yoke/simulation-tests test`);
    // The reproduction reproduces: the reported seed at the reported size fails the same invariant.
    await expect(runSeed(options, seed, size)).resolves.toMatchObject({ kind: "invariant", invariant: "atMostOneToolCall" });
    // And no smaller size does (the shrink kept the smallest).
    for (let smaller = 1; smaller < size; smaller++) await expect(runSeed(options, seed, smaller)).resolves.not.toHaveProperty("kind");
  });

  it("a drive that throws fails its seed with the error, not a hang", async () => {
    const error = await failureOf(
      simulate({
        seeds: [3],
        drive: async (world) => {
          await world.sleep(10);
          throw new YokeError("INTERNAL", "the drive broke");
        },
      }),
    );
    expect(error.details).toMatchObject({ kind: "drive", seed: 3, size: 1 });
    expect(error.message).toContain("the drive threw: INTERNAL the drive broke");
  });

  it("work that waits on something outside the world is reported stuck, not left hanging", async () => {
    const error = await failureOf(simulate({ seeds: [1], shrink: false, drive: () => new Promise<DrivenWorld>(() => undefined) }));
    expect(error.details).toMatchObject({ kind: "drive", seed: 1 });
    expect(error.message).toContain("the work is waiting on something outside the world");
  });
});
