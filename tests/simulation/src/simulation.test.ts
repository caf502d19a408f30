import { replay } from "@yoke/runtime";
import { WORLD_INVARIANTS, createWorld, simulate, simulationPlanFromEnv, type SeedRun } from "@yoke/testkit/sim";
import { describe, expect, it } from "vitest";
import { budgetWithinDeclaredOvershoot } from "./budget-invariant.ts";
import { emptyCoverage, tally } from "./coverage.ts";
import { driveWorld, worldHarnessOptions, type DrivenWorld } from "./drive.ts";

/** Seeds in the default CI run; `YOKE_SIM_SEEDS=N` soaks longer, `YOKE_SIM_SEED=s` runs one. */
const DEFAULT_SEEDS = 1_000;

const invariants = [...WORLD_INVARIANTS, budgetWithinDeclaredOvershoot, replayShowsNoDivergence];

/**
 * The produced journal, replayed through the same code with its recorded answers and outcomes,
 * journals the same events: REPLAY_DIVERGED (naming the first differing event) fails the seed.
 * The world is drawn again from the seed: the run's own parts are spent.
 */
async function replayShowsNoDivergence(run: SeedRun<DrivenWorld>): Promise<void> {
  const world = createWorld(run.seed, run.size);
  await world.time.run(() =>
    replay({ journal: run.driven.journal, tenantId: world.tenantId, runId: world.runId }, worldHarnessOptions(world, run.driven.journal, "replay")),
  );
}

describe("deterministic simulation", () => {
  it("every seed's world, run twice, journals the same bytes and keeps every invariant", async () => {
    const plan = simulationPlanFromEnv(DEFAULT_SEEDS);
    const coverage = emptyCoverage();
    const report = await simulate({ ...plan, drive: driveWorld, invariants: [...invariants, tally(coverage)] });
    expect(report.seeds).toBe(plan.seeds?.length ?? plan.count);
    expect(coverage.seeds).toBe(report.seeds);
    if (report.seeds < DEFAULT_SEEDS) return;
    // The worlds reach what they are drawn to reach: a simulation that stopped exercising a
    // fault would still pass its invariants, so each is counted.
    expect(Object.keys(coverage.outcomes).sort()).toEqual(
      expect.arrayContaining(["budget_exhausted", "cancelled", "completed", "escalated", "refused", "verification_failed", "verified_success"]),
    );
    for (const figure of [
      "crashesResumed",
      "approvalsRequested",
      "approvalsDenied",
      "interruptsLanded",
      "refusals",
      "modelFailures",
      "uncertainAttempts",
      "reconciled",
      "compensated",
      "toolTimeouts",
      "reorderedBatches",
    ] as const) {
      expect(coverage[figure], figure).toBeGreaterThan(report.seeds / 100);
    }
  }, 600_000);
});
