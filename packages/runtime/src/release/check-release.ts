import {
  EVENT_SCHEMA_VERSION,
  GENESIS_HASH,
  YokeError,
  compareReleases,
  describeReleaseDifferences,
  readYokeEvents,
  type JournalEvent,
  type JsonValue,
  type Release,
  type ReleaseDifference,
  type YokeEvent,
  type YokeEventDraft,
} from "@yoke/protocol";
import type { RunContext } from "../run-context.js";
import { commitTurn } from "../turn/turn.js";
import { cancelDrafts } from "../loop/cancel-drafts.js";
import { runFailedDraft } from "../loop/run-failure.js";
import { snapshotRecord } from "../pinned-tools.js";
import { runningRelease } from "./running-release.js";
import { defaultCompatible } from "./compatibility.js";
import type { ReleaseMigration } from "./release-options.js";

/**
 * Before a resume drives a run: compares the release the run is pinned to with the running
 * one and proceeds (nothing journaled when they are the same; `release.changed` when they
 * differ compatibly), migrates (`release.migrated` and the migration's events), terminates
 * the run (`cancelled`, with `onIncompatible: "terminate"`) or throws RELEASE_INCOMPATIBLE.
 * A finished run is never driven, so never checked.
 */
export async function checkRelease(context: RunContext): Promise<void> {
  const state = context.accumulator.peek();
  if (state.phase === "finished") return;
  const { deps } = context;
  const pinned = state.release as Release;
  const running = runningRelease(deps, deps.registry === undefined ? undefined : snapshotRecord(deps.registry.snapshot()).digest);
  const differences = compareReleases(pinned, running);
  if (differences.length === 0) return;
  const verdict = verdictOf(context, pinned, running, differences);
  if (verdict === true) {
    await commitTurn(context, [
      { type: "release.changed", at: deps.clock.now(), causationId: null, data: { from: pinned, to: running, differences: stored(differences) } },
    ]);
    context.logger.info({ from: pinned.runtime, to: running.runtime, fields: differences.map((difference) => difference.field) }, "release changed");
    return;
  }
  const migration = deps.releases.migrations.find((candidate) => candidate.to === running.runtime && matches(candidate, pinned));
  if (migration !== undefined) return migrate(context, migration, pinned, running, differences);
  const reason = `release ${pinned.runtime} cannot be driven by ${running.runtime}: ${describeReleaseDifferences(differences)}`;
  // A run with calls in flight is never cut between a call and its result: it is refused instead.
  if (deps.releases.onIncompatible === "terminate" && state.phase !== "tools_pending") {
    await commitTurn(context, cancelDrafts(context, state, { outcome: { status: "cancelled", reason } }));
    context.logger.warn({ from: pinned.runtime, to: running.runtime }, "run terminated: its release is incompatible");
    return;
  }
  const pinnedBy = await pinningEvent(context);
  throw new YokeError(
    "RELEASE_INCOMPATIBLE",
    `run ${state.runId}: ${reason}; the release was pinned by event ${pinnedBy.seq} (${pinnedBy.type}); drive it with ${pinned.runtime}, or declare a migration`,
    { details: { ...context.scope, pinned, running, differences, driveWith: pinned.runtime, pinnedBy } },
  );
}

/** The event that pinned the run's release: its last `release.changed` / `release.migrated`, else `run.started` (read on refusal only). */
async function pinningEvent(context: RunContext): Promise<{ seq: number; type: string }> {
  let pinnedBy = { seq: 0, type: "run.started" };
  for await (const event of context.deps.journal.read(context.scope)) {
    if (event.type === "release.changed" || event.type === "release.migrated") pinnedBy = { seq: event.seq, type: event.type };
  }
  return pinnedBy;
}

function verdictOf(context: RunContext, pinned: Release, running: Release, differences: readonly ReleaseDifference[]): boolean | "migrate" {
  const rule = context.deps.releases.compatible;
  const given = rule === undefined ? undefined : rule(pinned, running, differences);
  if (given === undefined) return defaultCompatible(differences);
  if (typeof given !== "boolean" && given !== "migrate") {
    throw new YokeError("CONFIG_INVALID", `releases.compatible must return true, false, "migrate" or undefined; it returned ${String(given)}`, {
      details: { option: "releases.compatible" },
    });
  }
  return given;
}

function matches(migration: ReleaseMigration, pinned: Release): boolean {
  return typeof migration.from === "string" ? migration.from === pinned.runtime : migration.from(pinned) === true;
}

/**
 * Runs `migration` and journals `release.migrated` with the events it returned, in one
 * transaction, each checked by the fold before anything is written. A migration that throws,
 * or returns events the run's fold refuses, is MIGRATION_FAILED, journaled as `run.failed`:
 * the run stays on its pinned release, as it was.
 */
async function migrate(
  context: RunContext,
  migration: ReleaseMigration,
  pinned: Release,
  running: Release,
  differences: readonly ReleaseDifference[],
): Promise<void> {
  const { deps, scope } = context;
  const checkpoint: YokeEventDraft = {
    type: "release.migrated",
    at: deps.clock.now(),
    causationId: null,
    data: { from: pinned, to: running, migrationId: migration.id, differences: stored(differences), events: 0 },
  };
  let drafts: YokeEventDraft[];
  try {
    const events: YokeEvent[] = [];
    for await (const event of readYokeEvents(deps.journal, scope)) events.push(event);
    const given = await migration.migrate({ runId: scope.runId, state: context.accumulator.snapshot(), events, pinned, running });
    drafts = [{ ...checkpoint, data: { ...(checkpoint.data as object), events: given?.length ?? 0 } } as YokeEventDraft, ...(given ?? [])];
    preview(context, drafts);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const failure = new YokeError(
      "MIGRATION_FAILED",
      `migration ${migration.id} of run ${scope.runId} from ${pinned.runtime} to ${running.runtime} failed: ${message}`,
      {
        details: { ...scope, migrationId: migration.id },
        cause: error,
      },
    );
    await commitTurn(context, [runFailedDraft(context, failure)]);
    throw failure;
  }
  await commitTurn(context, drafts);
  context.logger.info({ from: pinned.runtime, to: running.runtime, migrationId: migration.id, events: drafts.length - 1 }, "release migrated");
}

/** Folds `drafts` on a copy of the run's state: the fold's EVENT_INVALID before any is written. */
function preview(context: RunContext, drafts: readonly YokeEventDraft[]): void {
  const copy = context.accumulator.fork();
  for (const draft of drafts) {
    const event: JournalEvent = {
      schemaVersion: EVENT_SCHEMA_VERSION,
      tenantId: context.scope.tenantId,
      runId: context.scope.runId,
      seq: copy.length,
      type: draft.type,
      at: draft.at,
      causationId: draft.causationId ?? null,
      data: draft.data as JournalEvent["data"],
      prevHash: GENESIS_HASH,
      hash: GENESIS_HASH,
    };
    copy.apply(event);
  }
}

/** Differences as an event holds them: a field the running release lacks is left out. */
function stored(differences: readonly ReleaseDifference[]): Array<{ field: ReleaseDifference["field"]; pinned: JsonValue; running?: JsonValue }> {
  // Release fields are JSON (ReleaseSchema); a pinned one is never undefined (compareReleases skips those).
  return differences.map(({ field, pinned, running }) =>
    running === undefined ? { field, pinned: pinned as JsonValue } : { field, pinned: pinned as JsonValue, running: running as JsonValue },
  );
}
