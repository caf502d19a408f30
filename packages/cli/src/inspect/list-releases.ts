import { createHash } from "node:crypto";
import { canonicalJson, type JournalV1, type Release } from "@yoke/protocol";
import { readRuns, summarizeRun, type TenantListing } from "./list-runs.js";
import type { RunStatus } from "./run-view.js";

/** One release and the runs pinned to it. */
export interface ReleaseListing {
  /** The first 12 hex characters of the SHA-256 of the release's canonical JSON: one release, one key. */
  readonly key: string;
  readonly release: Release;
  readonly runs: number;
  /** Runs not finished (running, waiting, failed): a resume of each is checked against this release. */
  readonly inFlight: number;
  readonly finished: number;
  /** The runs not finished, with their status. */
  readonly inFlightRuns: readonly { readonly tenantId: string; readonly runId: string; readonly status: RunStatus }[];
}

/**
 * The releases the journal's runs are pinned to (`run.started.release`, or the last
 * `release.changed` / `release.migrated`), each with its run counts and the runs still in
 * flight, the release with the most runs in flight first. A run that cannot be read far enough
 * to know its release (broken at its first event) is counted in `unreadable`.
 *
 * @example
 * ```ts
 * const { releases } = await listReleases(await openStore("yoke.sqlite"));
 * releases.map((entry) => `${entry.release.runtime}: ${entry.inFlight} in flight`);
 * ```
 */
export async function listReleases(
  journal: JournalV1 & Partial<TenantListing>,
  tenantId?: string,
): Promise<{ releases: ReleaseListing[]; unreadable: number }> {
  const byKey = new Map<string, { release: Release; runs: number; finished: number; inFlightRuns: ReleaseListing["inFlightRuns"][number][] }>();
  let unreadable = 0;
  for await (const { tenantId: tenant, runId, events, error } of readRuns(journal, tenantId)) {
    if (events.length === 0) {
      unreadable++;
      continue;
    }
    const release = pinnedRelease(events);
    const key = createHash("sha256").update(canonicalJson(release)).digest("hex").slice(0, 12);
    const entry = byKey.get(key) ?? { release, runs: 0, finished: 0, inFlightRuns: [] };
    byKey.set(key, entry);
    entry.runs++;
    const { status } = summarizeRun(events, error);
    if (status === "finished") entry.finished++;
    else entry.inFlightRuns.push({ tenantId: tenant, runId, status });
  }
  const releases = [...byKey].map(([key, entry]) => ({ key, ...entry, inFlight: entry.inFlightRuns.length }));
  releases.sort((a, b) => b.inFlight - a.inFlight || b.runs - a.runs || a.key.localeCompare(b.key));
  return { releases, unreadable };
}

function pinnedRelease(events: readonly { type: string; data: unknown }[]): Release {
  let release = (events[0]!.data as { release: Release }).release;
  for (const event of events) if (event.type === "release.changed" || event.type === "release.migrated") release = (event.data as { to: Release }).to;
  return release;
}
