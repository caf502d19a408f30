import { YokeError, type JournalEvent, type JournalV1 } from "@yoke/protocol";
import { firstDifference, readTenant, type TenantEvents } from "./journal-bytes.js";
import { MAX_WORLD_SIZE, createWorld, type SimWorld } from "./world.js";

/** What a drive hands back: the journal its harnesses wrote (the world's tenant and run are read from it). */
export interface SimDriven {
  readonly journal: JournalV1;
}

/** One seed's run, as its invariants see it. */
export interface SeedRun<Driven extends SimDriven = SimDriven> {
  readonly seed: number;
  readonly size: number;
  readonly world: SimWorld;
  readonly driven: Driven;
  /** Every stream of the world's tenant (the run, its interrupt inbox), by run id. */
  readonly streams: TenantEvents;
  /** The world's run (`world.runId`). */
  readonly events: readonly JournalEvent[];
}

/** A property every seed's run must have: throws (a typed error) when it does not. Named by the function's name in reports. */
export type SimInvariant<Driven extends SimDriven = SimDriven> = (run: SeedRun<Driven>) => void | Promise<void>;

export interface SimulateOptions<Driven extends SimDriven> {
  /** The seeds to run; or `from` (default 1) and `count`. */
  readonly seeds?: readonly number[];
  readonly from?: number;
  readonly count?: number;
  /** The size of every world (1 to `MAX_WORLD_SIZE`, the default); a failure is shrunk below it. */
  readonly size?: number;
  /** How a world is drawn. Default `createWorld`. */
  readonly world?: (seed: number, size: number) => SimWorld;
  /** Builds a harness (or several) from the world's parts and runs the world's run to its end. */
  readonly drive: (world: SimWorld) => Promise<Driven>;
  readonly invariants?: readonly SimInvariant<Driven>[];
  /** Shrink a failing world to the smallest size that fails the same way. Default true. */
  readonly shrink?: boolean;
  /** The one-line reproduction printed with a failure. Default `YOKE_SIM_SEED=<seed> YOKE_SIM_SIZE=<size> pnpm --filter @yoke/simulation-tests test`. */
  readonly reproduce?: (seed: number, size: number) => string;
}

export interface SimulationReport {
  readonly seeds: number;
  /** Events journaled over all seeds (one of the two runs of each). */
  readonly events: number;
}

/** Why one seed failed. */
export type SeedFailure =
  | { readonly kind: "drive"; readonly error: unknown }
  | { readonly kind: "nondeterministic"; readonly runId: string; readonly seq: number; readonly first: string | null; readonly second: string | null }
  | { readonly kind: "invariant"; readonly invariant: string; readonly error: unknown };

/**
 * Deterministic simulation: runs each seed's world twice through `drive`, checks that both
 * runs journaled byte-identical events (canonical JSON, hashes included), then checks every
 * invariant on the first run. Stops at the first failing seed, shrinks it (the same seed
 * drawn at smaller sizes, keeping the smallest that fails the same way) and throws
 * TESTKIT_EXPECTATION_FAILED whose message names the seed, the size, what failed, the world
 * and a one-line reproduction (`details` carries them too).
 *
 * @example
 * ```ts
 * await simulate({
 *   count: 1_000,
 *   drive: async (world) => {
 *     const journal = createMemoryJournal({ clock: world.clock });
 *     const harness = createHarness({ journal, provider: createScriptedModel(world.model.steps()), tools: world.tools.map(defineTool), clock: world.clock, ids: world.ids, timers: world.timers, sleep: world.sleep, tenantId: world.tenantId });
 *     await harness.start("task", { runId: world.runId });
 *     return { journal };
 *   },
 *   invariants: [noDuplicatedEffects, chainVerifies, outcomeInClosedSet],
 * });
 * ```
 */
export async function simulate<Driven extends SimDriven>(options: SimulateOptions<Driven>): Promise<SimulationReport> {
  const size = options.size ?? MAX_WORLD_SIZE;
  const seeds = seedList(options);
  let events = 0;
  for (const seed of seeds) {
    const outcome = await runSeed(options, seed, size);
    if ("kind" in outcome) throw await report(options, seed, size, outcome);
    events += outcome.events;
  }
  return { seeds: seeds.length, events };
}

/** Runs one seed at one size: the failure, or how many events its run journaled. */
export async function runSeed<Driven extends SimDriven>(
  options: SimulateOptions<Driven>,
  seed: number,
  size: number,
): Promise<SeedFailure | { readonly events: number }> {
  const draw = options.world ?? ((s: number, n: number) => createWorld(s, n));
  const once = async () => {
    const world = draw(seed, size);
    const driven = await world.time.run(() => options.drive(world));
    return { world, driven, streams: await readTenant(driven.journal, world.tenantId) };
  };
  let first: Awaited<ReturnType<typeof once>>;
  let second: Awaited<ReturnType<typeof once>>;
  try {
    first = await once();
    second = await once();
  } catch (error) {
    return { kind: "drive", error };
  }
  const difference = firstDifference(first.streams, second.streams);
  if (difference !== undefined) return { kind: "nondeterministic", ...difference };
  const events = first.streams.get(first.world.runId) ?? [];
  const run: SeedRun<Driven> = { seed, size, world: first.world, driven: first.driven, streams: first.streams, events };
  for (const [index, invariant] of (options.invariants ?? []).entries()) {
    try {
      await invariant(run);
    } catch (error) {
      return { kind: "invariant", invariant: invariant.name || `invariant ${index + 1}`, error };
    }
  }
  let total = 0;
  for (const stream of first.streams.values()) total += stream.length;
  return { events: total };
}

function seedList(options: Pick<SimulateOptions<SimDriven>, "seeds" | "from" | "count">): readonly number[] {
  if (options.seeds !== undefined) return options.seeds;
  const from = options.from ?? 1;
  const count = options.count ?? 100;
  if (!Number.isSafeInteger(from) || from < 0 || !Number.isSafeInteger(count) || count < 0) {
    throw new YokeError("CONFIG_INVALID", `simulate: from and count must be non-negative integers, got from ${from}, count ${count}`, {
      details: { option: "count" },
    });
  }
  return Array.from({ length: count }, (_, index) => from + index);
}

const sameFailure = (a: SeedFailure, b: SeedFailure) =>
  a.kind === b.kind && (a.kind !== "invariant" || (b.kind === "invariant" && a.invariant === b.invariant));

async function report<Driven extends SimDriven>(options: SimulateOptions<Driven>, seed: number, size: number, found: SeedFailure): Promise<YokeError> {
  let smallest = { size, failure: found };
  if (options.shrink !== false) {
    for (let candidate = 1; candidate < size; candidate++) {
      const outcome = await runSeed(options, seed, candidate);
      if ("kind" in outcome && sameFailure(outcome, found)) {
        smallest = { size: candidate, failure: outcome };
        break;
      }
    }
  }
  const world = (options.world ?? ((s: number, n: number) => createWorld(s, n)))(seed, smallest.size);
  const reproduction = (options.reproduce ?? defaultReproduction)(seed, smallest.size);
  const what = describe(smallest.failure);
  const message = [
    `simulation: seed ${seed} failed: ${what}`,
    `  shrunk to size ${smallest.size} (from ${size})`,
    ...world.description.map((line) => `  world: ${line}`),
    `  reproduce: ${reproduction}`,
  ].join("\n");
  const failure = smallest.failure;
  return new YokeError("TESTKIT_EXPECTATION_FAILED", message, {
    cause: "error" in failure ? failure.error : undefined,
    details: {
      seed,
      size: smallest.size,
      originalSize: size,
      kind: failure.kind,
      reproduction,
      ...(failure.kind === "invariant" ? { invariant: failure.invariant } : {}),
      ...(failure.kind === "nondeterministic" ? { runId: failure.runId, seq: failure.seq } : {}),
    },
  });
}

function describe(failure: SeedFailure): string {
  switch (failure.kind) {
    case "drive":
      return `the drive threw: ${messageOf(failure.error)}`;
    case "invariant":
      return `invariant ${failure.invariant}: ${messageOf(failure.error)}`;
    case "nondeterministic":
      return `two runs of the same seed journaled different bytes, first at ${failure.runId} seq ${failure.seq}:\n    first:  ${failure.first}\n    second: ${failure.second}`;
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? `${YokeError.isInstance(error) ? `${error.code} ` : ""}${error.message}` : String(error));

function defaultReproduction(seed: number, size: number): string {
  return `YOKE_SIM_SEED=${seed}${size === MAX_WORLD_SIZE ? "" : ` YOKE_SIM_SIZE=${size}`} pnpm --filter @yoke/simulation-tests test`;
}
