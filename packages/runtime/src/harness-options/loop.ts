import type { LoopControlOptions } from "../loop-control.js";
import type { CompletionCheck } from "../completion-check.js";

/**
 * When a run stops and what may step in between its turns: the completion gate
 * (`checkCompletion`, `verifiers`), how often a failed gate or a cut answer is sent back,
 * loop detection, and how a run's owner watches for interrupts. One of the groups
 * `HarnessOptions` is composed of; the stop-condition members come from `LoopControlOptions`.
 *
 * @example
 * ```ts
 * const loop: HarnessLoopOptions = {
 *   checkCompletion: async () => (existsSync("summary.md") ? { passed: true } : { passed: false, reason: "no summary.md" }),
 *   verifierRetries: 1,
 *   truncatedCallRetries: 1,
 *   loopDetection: { threshold: 4 },
 * };
 * const harness = createHarness({ ...loop, provider, tools });
 * ```
 */
export interface HarnessLoopOptions extends LoopControlOptions {
  /**
   * Gates `end_turn`: only a passing check ends a run `verified_success`. Default: none, and
   * a final answer ends the run `completed` (unverified: nothing checked it).
   */
  checkCompletion?: CompletionCheck;
  /**
   * How many responses in a row may have a tool call cut by the output limit
   * (`tool-call-truncated`, stop reason `max_tokens`) and still be answered. Default 2. Such a
   * call is never run; the runtime journals a note for the model (`input.added`, source
   * `output-limit`) naming the call, and asks again (in the same turn, or after the
   * response's complete calls have run). One more cut response in a row ends the run
   * `escalated`. Not pinned in the journal: a resume with another value decides with it.
   */
  truncatedCallRetries?: number;
  /**
   * The directory verifiers work in (`VerifierInput.workspace`), e.g. a checkout a command verifier runs tests in.
   *
   * @experimental A workspace is to become a directory the run owns, with journaled revisions;
   * this option's type and meaning may change with it.
   */
  workspace?: string;
  /**
   * How a run's owner watches its interrupt inbox (`InterruptOptions`).
   *
   * @experimental Watching by polling (`pollMs`) may give way to the store telling the owner;
   * this option may change or go.
   */
  interrupts?: InterruptOptions;
}

/**
 * `HarnessOptions.interrupts`: how a run's owner watches its interrupt inbox while a model call
 * is in flight.
 *
 * @experimental See `HarnessOptions.interrupts`.
 *
 * @example
 * ```ts
 * createHarness({ provider, journal: "./yoke.sqlite", interrupts: { pollMs: 250 } });
 * ```
 */
export interface InterruptOptions {
  /**
   * While a model call is in flight, the run's owner reads its interrupt inbox every this many
   * ms (on the harness's `timers`) and cuts the call short when another process has cancelled
   * the run. Default 500. A cancel sent through the harness that drives the run needs no wait.
   */
  readonly pollMs?: number;
}
