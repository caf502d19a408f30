/**
 * A release as a router names it: at least the runtime a harness journals in
 * `run.started.data.release.runtime` (its `runtimeVersion` option, by default
 * `@yoke/runtime@<version>`), and any other members of the release tuple.
 */
export interface ReleaseTag {
  readonly runtime: string;
  readonly [member: string]: unknown;
}

/**
 * Whether a run pinned to `pinned` (its `run.started.data.release`) belongs to the release
 * `target`. The one rule a router routes by: today the release tuple's `runtime`; where the
 * tuple grows (policy revision, tool snapshot, …) and a canary differs in those, this is the
 * function to change.
 */
export function releaseMatches(pinned: unknown, target: ReleaseTag): boolean {
  if (typeof pinned !== "object" || pinned === null) return false;
  return (pinned as { runtime?: unknown }).runtime === target.runtime;
}
