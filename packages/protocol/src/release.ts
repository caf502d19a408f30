import { canonicalJson } from "./canonical-json.js";
import { RELEASE_FIELDS, type Release, type ReleaseDifference } from "./release-schema.js";

export { RELEASE_FIELDS, ReleaseSchema, type Release, type ReleaseDifference, type ReleaseField } from "./release-schema.js";

/**
 * The fields in which `running` differs from `pinned`, in `RELEASE_FIELDS` order. A field the
 * pinned release does not hold (a journal written before it was pinned) is not compared.
 *
 * @example
 * ```ts
 * compareReleases({ runtime: "@yoke/runtime@1.0.0", eventSchemaVersion: 1 }, { runtime: "@yoke/runtime@1.2.0", eventSchemaVersion: 1, policy: "ab…" });
 * // [{ field: "runtime", pinned: "@yoke/runtime@1.0.0", running: "@yoke/runtime@1.2.0" }]
 * ```
 */
export function compareReleases(pinned: Release, running: Release): ReleaseDifference[] {
  const differences: ReleaseDifference[] = [];
  for (const field of RELEASE_FIELDS) {
    const before = pinned[field];
    if (before === undefined) continue;
    const after = running[field];
    if (after === undefined || canonicalJson(before) !== canonicalJson(after)) differences.push({ field, pinned: before, running: after });
  }
  return differences;
}

/**
 * The runtime of a release as a name and a semantic version (`@yoke/runtime@1.4.0` →
 * `{ name: "@yoke/runtime", major: 1, minor: 4, patch: 0 }`; a bare `1.4.0` has the name
 * `""`), or undefined for a label that is not one (`ci-build-17`).
 */
export function runtimeVersionOf(runtime: string): { name: string; major: number; minor: number; patch: number } | undefined {
  const match = /^(?:(.*)@)?v?(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(runtime);
  if (match === null) return undefined;
  return { name: match[1] ?? "", major: Number(match[2]), minor: Number(match[3]), patch: Number(match[4]) };
}

/** One line naming each difference with both values, for messages. */
export function describeReleaseDifferences(differences: readonly ReleaseDifference[]): string {
  const shown = (value: unknown) => (value === undefined ? "(none)" : canonicalJson(value));
  return differences.map((difference) => `${difference.field}: pinned ${shown(difference.pinned)}, running ${shown(difference.running)}`).join("; ");
}
