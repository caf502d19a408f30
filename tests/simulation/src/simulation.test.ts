import { WORLD_INVARIANTS, simulate, simulationPlanFromEnv } from "@yoke/testkit/sim";
import { describe, expect, it } from "vitest";
import { budgetWithinDeclaredOvershoot } from "./budget-invariant.ts";
import { driveWorld } from "./drive.ts";

/** Seeds in the default CI run; `YOKE_SIM_SEEDS=N` soaks longer, `YOKE_SIM_SEED=s` runs one. */
const DEFAULT_SEEDS = 1_000;

const invariants = [
  ...WORLD_INVARIANTS,
  budgetWithinDeclaredOvershoot,
  // INTEGRATOR: add the replay invariant here once `replay` lands in @yoke/runtime:
  //   async function replayShowsNoDivergence(run) {
  //     await replay({ journal: run.driven.journal, tenantId: run.world.tenantId, runId: run.world.runId }, harnessOptionsFor(run.world));
  //   }
  // (it rejects with REPLAY_DIVERGED naming the first differing event; the harness options are
  // driveWorld's, built again from a fresh `createWorld(run.seed, run.size)`).
];

describe("deterministic simulation", () => {
  it("every seed's world, run twice, journals the same bytes and keeps every invariant", async () => {
    const plan = simulationPlanFromEnv(DEFAULT_SEEDS);
    const report = await simulate({ ...plan, drive: driveWorld, invariants });
    expect(report.seeds).toBe(plan.seeds?.length ?? plan.count);
    expect(report.events).toBeGreaterThan(report.seeds * 5);
  }, 600_000);
});
