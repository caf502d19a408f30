// A long soak of the simulation, with figures: `YOKE_SIM_SEEDS=10000 pnpm --filter @yoke/simulation-tests soak`.
// Prints seeds/s, events/s and what the worlds exercised; exits 1 on the first failing seed (its report names it).
import { performance } from "node:perf_hooks";
import { WORLD_INVARIANTS, simulate, simulationPlanFromEnv } from "@yoke/testkit/sim";
import { emptyCoverage, tally } from "./coverage.ts";
import { driveWorld } from "./drive.ts";
import { budgetWithinDeclaredOvershoot } from "./budget-invariant.ts";

const plan = simulationPlanFromEnv(10_000);
const coverage = emptyCoverage();
const started = performance.now();
try {
  const report = await simulate({ ...plan, drive: driveWorld, invariants: [...WORLD_INVARIANTS, budgetWithinDeclaredOvershoot, tally(coverage)] });
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(
    `${report.seeds} seeds (each run twice) in ${seconds.toFixed(1)} s: ${(report.seeds / seconds).toFixed(1)} seeds/s, ${(report.events / seconds).toFixed(0)} events/s, 0 failures\n${JSON.stringify(coverage, null, 2)}\n`,
  );
} catch (error) {
  process.stdout.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
