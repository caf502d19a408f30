import { YokeError } from "@yoke/protocol";
import { MAX_WORLD_SIZE } from "./world.js";

/** Which seeds a simulation runs: one seed, or a count from 1; and the world size. */
export interface SimulationPlan {
  readonly seeds?: readonly number[];
  readonly count?: number;
  readonly size: number;
}

/**
 * The seeds a run of a simulation suite asks for: `YOKE_SIM_SEED=s` runs that seed alone,
 * `YOKE_SIM_SEEDS=N` runs seeds 1 to N (a soak), neither runs `defaultCount`;
 * `YOKE_SIM_SIZE` sets the world size (default the largest). A value that is not a
 * non-negative integer (or a size out of range) is CONFIG_INVALID naming the variable: a typo
 * never silently runs the default.
 */
export function simulationPlanFromEnv(defaultCount: number, env: NodeJS.ProcessEnv = process.env): SimulationPlan {
  const read = (name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined => {
    const text = env[name];
    if (text === undefined || text === "") return undefined;
    const value = Number(text);
    if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new YokeError("CONFIG_INVALID", `${name}=${text} is not an integer from ${min} to ${max}`, { details: { option: name } });
    }
    return value;
  };
  const seed = read("YOKE_SIM_SEED", 0);
  const count = read("YOKE_SIM_SEEDS", 1);
  const size = read("YOKE_SIM_SIZE", 1, MAX_WORLD_SIZE) ?? MAX_WORLD_SIZE;
  if (seed !== undefined) return { seeds: [seed], size };
  return { count: count ?? defaultCount, size };
}
