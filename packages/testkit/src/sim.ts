/**
 * @yoke/testkit/sim — deterministic simulation of agent runs. One seed draws a whole world
 * (virtual clock and timers, sequential ids, a model script, tools with faults and timings,
 * the order concurrent calls settle in, a crash point, interrupts, approvals, a budget);
 * `simulate` runs many seeds, each twice, demands byte-identical journals, checks pluggable
 * invariants, and reports a failing seed shrunk to a small world with a one-line
 * reproduction. The world holds no runtime: the caller's `drive(world)` builds the harness.
 */
export { crashingJournal, isSimulatedCrash, simulatedCrash } from "./sim/crash-in-process.js";
export type { InProcessCrash } from "./sim/crash-in-process.js";
export { WORLD_INVARIANTS, chainVerifies, noDuplicatedEffects, outcomeInClosedSet } from "./sim/invariants.js";
export { firstDifference, readTenant } from "./sim/journal-bytes.js";
export type { JournalDifference, TenantEvents } from "./sim/journal-bytes.js";
export { seededRandom } from "./sim/prng.js";
export type { SeededRandom } from "./sim/prng.js";
export { simulationPlanFromEnv } from "./sim/sim-env.js";
export type { SimulationPlan } from "./sim/sim-env.js";
export { runSeed, simulate } from "./sim/simulate.js";
export type { SeedFailure, SeedRun, SimDriven, SimInvariant, SimulateOptions, SimulationReport } from "./sim/simulate.js";
export { createVirtualTime } from "./sim/virtual-time.js";
export type { VirtualTime, VirtualTimeOptions, VirtualTimers } from "./sim/virtual-time.js";
export { MAX_WORLD_SIZE, createWorld } from "./sim/world.js";
export type { CreateWorldOptions, SimWorld, WorldAnswer, WorldInterrupt } from "./sim/world.js";
export { worldModel } from "./sim/world-model.js";
export type { WorldModel, WorldTurn } from "./sim/world-model.js";
export { WORLD_POLICY_REVISION, worldPolicy } from "./sim/world-policy.js";
export { WORLD_TOOL_ATTEMPTS, WORLD_TOOL_TIMEOUT_MS, worldTools } from "./sim/world-tools.js";
export type { WorldTool, WorldToolBehaviour } from "./sim/world-tools.js";
export { createMemoryEffectLedger } from "./effect-ledger.js";
