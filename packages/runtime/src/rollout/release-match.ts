import { canonicalJson } from "@yoke/protocol";

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
 * `target`: every member the tag names (its `runtime`, and any other member of the release
 * tuple it gives, such as `policy` or `tools`) equals the pinned one.
 */
export function releaseMatches(pinned: unknown, target: ReleaseTag): boolean {
  if (typeof pinned !== "object" || pinned === null) return false;
  // Every member the tag names must be the pinned one (a tag of `{ runtime, policy }` tells
  // two releases of one runtime apart by their policy revision).
  const members = pinned as Record<string, unknown>;
  return Object.entries(target).every(
    ([member, value]) => value === undefined || (members[member] !== undefined && canonicalJson(members[member]) === canonicalJson(value)),
  );
}
