import type { RunState, VerifierV1, YokeEvent } from "@yoke/protocol";
import { YokeError } from "@yoke/protocol";
import { defineVerifier } from "./define-verifier.js";

/** What an invariant's check returns: a boolean, or a verdict with the reason it does not hold. */
export type InvariantResult = boolean | { readonly passed: boolean; readonly reason?: string };

export interface InvariantVerifierOptions {
  readonly id: string;
  /** What must hold, in words: the reason of a failed verdict names it. */
  readonly description: string;
  /** A pure predicate over the folded run state and the journaled events (it may be async). */
  readonly check: (state: RunState, events: readonly YokeEvent[]) => InvariantResult | Promise<InvariantResult>;
}

/**
 * An invariant over the run as journaled: `check(state, events)` must hold. Replay-safe (it
 * reads the journal only). A `false` fails with the description as the reason (or the
 * reason the check gave) and `retry: true`; a check that throws is VERIFIER_FAILED.
 *
 * @example
 * ```ts
 * const noFailedActions = invariantVerifier({
 *   id: "no-failed-actions",
 *   description: "no action of the run failed",
 *   check: (_state, events) => !events.some((event) => event.type === "action.failed"),
 * });
 * ```
 */
export function invariantVerifier(options: InvariantVerifierOptions): VerifierV1 {
  const { id, description, check } = options;
  if (typeof check !== "function") throw new YokeError("CONFIG_INVALID", `verifier "${id}": check must be a function`);
  return defineVerifier({
    id,
    kind: "invariant",
    replaySafe: true,
    description,
    async verify({ state, events }) {
      const result = await check(state, events);
      const passed = typeof result === "boolean" ? result : result.passed;
      if (typeof passed !== "boolean")
        throw new YokeError("VERIFIER_FAILED", `verifier "${id}": check returned neither a boolean nor { passed }`, { details: { verifierId: id } });
      if (passed) return { passed: true };
      const reason = typeof result === "object" && result.reason !== undefined ? result.reason : `the invariant does not hold: ${description}`;
      return { passed: false, retry: true, reason };
    },
  });
}
