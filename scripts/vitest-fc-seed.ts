// One fast-check seed per test run, so a property failure in CI can be replayed exactly:
// YOKE_FC_SEED=<seed> vitest run … runs every property with the seed that run printed. Unset,
// a fresh seed is drawn, so the cases covered grow from run to run. Runs in the main process
// before any worker starts (vitest globalSetup); workers inherit the variable and
// scripts/vitest-setup.ts hands it to fc.configureGlobal. A failing property's report also
// names its seed and `path` (pass both in that assert's parameters to replay only its case).
import { randomInt } from "node:crypto";

export const FC_SEED_ENV = "YOKE_FC_SEED";

/** The seed in YOKE_FC_SEED, or undefined when it is unset; a malformed one is an error, not a silent reseed. */
export function fcSeedFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const text = env[FC_SEED_ENV];
  if (text === undefined || text === "") return undefined;
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) throw new TypeError(`${FC_SEED_ENV}=${text} is not an integer seed`);
  return seed;
}

export default function setup(): void {
  if (fcSeedFromEnv() !== undefined && process.env.YOKE_FC_SEED_PRINTED === "1") return;
  const seed = fcSeedFromEnv() ?? randomInt(0, 2 ** 31 - 1);
  process.env[FC_SEED_ENV] = String(seed);
  // Once per run, however many projects run this setup.
  process.env.YOKE_FC_SEED_PRINTED = "1";
  process.stdout.write(`fast-check seed ${seed} (replay with ${FC_SEED_ENV}=${seed})\n`);
}
