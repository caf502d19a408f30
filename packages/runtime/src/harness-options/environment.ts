import type { Clock, IdSource } from "@yoke/protocol";
import type { Timers } from "@yoke/scheduler";
import type { Sleep } from "../model-call.js";
import type { ReleaseOptions } from "../release/release-options.js";

/**
 * What a harness takes from the process around it: time (`clock`), ids, how it waits
 * (`sleep`, `timers`) and the runtime release it records. Every time and id in a journal
 * comes from these, so a test that injects them (and a scripted model) gets the same journal
 * bytes on every run. One of the groups `HarnessOptions` is composed of.
 *
 * @example
 * ```ts
 * const deterministic: HarnessEnvironmentOptions = {
 *   clock: steppingClock(Date.UTC(2026, 0, 1), 1),
 *   ids: sequentialIdSource(),
 *   sleep: async () => {},
 * };
 * const harness = createHarness({ ...deterministic, provider, tools });
 * ```
 */
export interface HarnessEnvironmentOptions {
  /** Default: the system clock. */
  clock?: Clock;
  /** Default: ULIDs from `clock`. */
  ids?: IdSource;
  /** How retries wait. Default: a real timer. Tests inject an instant one. */
  sleep?: Sleep;
  /** Timers that arm tool deadlines, model call deadlines and the inbox watch during a model call (`interrupts.pollMs`). Default: the real ones. Tests inject fake ones. */
  timers?: Timers;
  /**
   * Recorded in `run.started` as `release.runtime`, the runtime of the release a run pins
   * (with the provider, compiler, tools, policy, verifiers and pricing); a resume compares it
   * with the running one (see `releases`). Default `@yoke/runtime@<version>`.
   */
  runtimeVersion?: string;
  /**
   * How a resume treats a run pinned to another release: the compatibility rule, declared
   * migrations, and whether an incompatible run is refused (default) or terminated. See
   * `ReleaseOptions` and docs/decisions/0026-releases-and-migrations.md.
   */
  releases?: ReleaseOptions;
}
