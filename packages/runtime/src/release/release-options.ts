import { YokeError, type Release, type ReleaseDifference, type RunState, type YokeEvent, type YokeEventDraft } from "@yoke/protocol";

/** A rule's verdict on a pinned release: drive it (`true`), refuse it (`false`), or bring it over through a declared migration. */
export type ReleaseVerdict = boolean | "migrate";

/** What a migration is given: the run as its journal holds it, under the release it pinned. */
export interface ReleaseMigrationInput {
  readonly runId: string;
  readonly state: RunState;
  readonly events: readonly YokeEvent[];
  readonly pinned: Release;
  readonly running: Release;
}

/**
 * A declared migration from the releases `from` matches (a runtime, e.g. `@yoke/runtime@1.4.0`,
 * or a test of the pinned release) to the running runtime `to`. `migrate` returns the events
 * that bring the run over (appended with `release.migrated`, in one transaction, each checked
 * by the fold first), or nothing when the run needs none. A throw is MIGRATION_FAILED,
 * journaled as `run.failed`; the run stays on its pinned release.
 */
export interface ReleaseMigration {
  readonly id: string;
  readonly from: string | ((pinned: Release) => boolean);
  readonly to: string;
  migrate(input: ReleaseMigrationInput): readonly YokeEventDraft[] | undefined | Promise<readonly YokeEventDraft[] | undefined>;
}

/**
 * How a resume treats a run pinned to another release than the running one
 * (docs/decisions/0026-releases-and-migrations.md).
 *
 * - `compatible(pinned, running, differences)`: the rule; `undefined` leaves the verdict to
 *   the default (same event schema or older, the runtime's same semver major, or the same
 *   minor below 1.0, the same pricing currency; everything else is governed where it is used).
 *   `true`: drive it, journaling `release.changed`. `false`: refuse, or migrate when a
 *   migration applies. `"migrate"`: only through a migration.
 * - `migrations`: declared migrations, the first whose `from` matches the pinned release and
 *   whose `to` is the running runtime applies.
 * - `onIncompatible`: `"refuse"` (default) throws RELEASE_INCOMPATIBLE naming every difference
 *   and the release that can drive the run; `"terminate"` ends it `cancelled` with a reason
 *   naming both releases (a run with calls in flight is refused instead: its effects settle
 *   under its own release).
 *
 * @example
 * ```ts
 * createHarness({
 *   provider,
 *   releases: {
 *     migrations: [{ id: "2-to-3", from: (pinned) => pinned.runtime.startsWith("@yoke/runtime@2."), to: "@yoke/runtime@3.0.0", migrate: () => [] }],
 *     onIncompatible: "terminate",
 *   },
 * });
 * ```
 */
export interface ReleaseOptions {
  readonly compatible?: (pinned: Release, running: Release, differences: readonly ReleaseDifference[]) => ReleaseVerdict | undefined;
  readonly migrations?: readonly ReleaseMigration[];
  readonly onIncompatible?: "refuse" | "terminate";
}

/** `ReleaseOptions` checked (CONFIG_INVALID naming the option), with the defaults. */
export interface ResolvedReleases {
  readonly compatible: ReleaseOptions["compatible"];
  readonly migrations: readonly ReleaseMigration[];
  readonly onIncompatible: "refuse" | "terminate";
}

export function resolveReleases(options: ReleaseOptions | undefined): ResolvedReleases {
  if (options === undefined) return { compatible: undefined, migrations: [], onIncompatible: "refuse" };
  if (typeof options !== "object" || options === null) invalid("releases must be an object", "releases");
  const { compatible, migrations = [], onIncompatible = "refuse" } = options;
  if (compatible !== undefined && typeof compatible !== "function") invalid("releases.compatible must be a function", "releases.compatible");
  if (onIncompatible !== "refuse" && onIncompatible !== "terminate")
    invalid('releases.onIncompatible must be "refuse" or "terminate"', "releases.onIncompatible");
  if (!Array.isArray(migrations)) invalid("releases.migrations must be a list", "releases.migrations");
  const ids = new Set<string>();
  for (const migration of migrations as readonly ReleaseMigration[]) {
    if (typeof migration?.id !== "string" || migration.id === "") invalid("releases.migrations: every migration needs a non-empty id", "releases.migrations");
    if (ids.has(migration.id)) invalid(`releases.migrations: two migrations share the id ${migration.id}`, "releases.migrations");
    ids.add(migration.id);
    if (typeof migration.from !== "string" && typeof migration.from !== "function")
      invalid(`releases.migrations: migration ${migration.id} needs from (a runtime or a test of the pinned release)`, "releases.migrations");
    if (typeof migration.to !== "string" || migration.to === "")
      invalid(`releases.migrations: migration ${migration.id} needs to (the runtime it migrates to)`, "releases.migrations");
    if (typeof migration.migrate !== "function") invalid(`releases.migrations: migration ${migration.id} needs a migrate function`, "releases.migrations");
  }
  return { compatible, migrations, onIncompatible };
}

function invalid(message: string, option: string): never {
  throw new YokeError("CONFIG_INVALID", `createHarness: ${message}`, { details: { option } });
}
