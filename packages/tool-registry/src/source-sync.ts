// A registry's remote sources: connecting one, re-listing it when it announces a change (one
// re-list at a time per source), diffing what it offers against what it offered, and waiting
// for the pending re-lists before a pinned tool is resolved.
import {
  YokeError,
  canonicalJson,
  type SourceRegistrationOptions,
  type ToolDrift,
  type ToolRevisionRecord,
  type ToolRevisionV1,
  type ToolSourceV1,
} from "@yoke/protocol";
import { sortByName } from "./discovery.js";
import type { LiveTools } from "./live-tools.js";
import { connectSource, listRevisions, type ConnectedSource } from "./sources.js";

export class SourceSync {
  private readonly sources: ConnectedSource[] = [];

  constructor(
    private readonly tools: LiveTools,
    private readonly isClosed: () => boolean,
  ) {}

  /** Connects a source and installs what it lists; refuses an origin already added or a name another origin holds. */
  async add(source: ToolSourceV1, registration: SourceRegistrationOptions): Promise<ToolRevisionV1[]> {
    if (this.sources.some((known) => canonicalJson(known.source.origin) === canonicalJson(source.origin))) {
      throw new YokeError("CONFIG_INVALID", "a source of this origin is already added", { details: { origin: source.origin } });
    }
    const connected: ConnectedSource = { source, options: registration, names: new Set(), queue: Promise.resolve(), unsubscribe: () => undefined };
    // Subscribed before the first listing: a change announced while it runs is re-listed after it.
    let ready = false;
    let missed = false;
    connected.unsubscribe = source.onListChanged(() => {
      if (this.isClosed()) return;
      if (ready) void this.schedule(connected).catch(() => undefined);
      else missed = true;
    });
    let listed: ToolRevisionV1[];
    try {
      listed = await connectSource(source, registration);
    } catch (error) {
      connected.unsubscribe();
      throw error;
    }
    const conflict = listed.map((revision) => this.tools.conflictOf(revision)).find((error) => error !== undefined);
    if (conflict) {
      connected.unsubscribe();
      await source.close().catch(() => undefined);
      throw conflict;
    }
    const kept = listed.map((revision) => {
      const installed = this.tools.installRecorded(revision);
      connected.names.add(revision.name);
      return installed;
    });
    this.sources.push(connected);
    ready = true;
    if (missed) void this.schedule(connected).catch(() => undefined);
    return kept;
  }

  /** Re-lists every source in turn; throws the first failure after trying them all. */
  async refresh(): Promise<ToolDrift[]> {
    const found: ToolDrift[] = [];
    let failure: unknown;
    for (const source of this.sources) {
      try {
        found.push(...(await this.schedule(source)));
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
    return found;
  }

  /** Waits for the pending re-lists of the sources of `origin` (all sources without one). */
  async settled(origin?: ToolRevisionRecord["origin"]): Promise<void> {
    const key = origin === undefined ? undefined : canonicalJson(origin);
    for (;;) {
      const waited = this.sources.filter((source) => key === undefined || canonicalJson(source.source.origin) === key);
      const pending = waited.map((source) => source.queue);
      await Promise.all(pending);
      if (waited.every((source, index) => source.queue === pending[index])) return;
    }
  }

  /** Whether a source of this origin is added. */
  holds(origin: ToolRevisionRecord["origin"]): boolean {
    return this.sources.some((source) => canonicalJson(source.source.origin) === canonicalJson(origin));
  }

  /** Whether the last re-list of this origin's source failed (what it offers now is unknown). */
  stale(origin: ToolRevisionRecord["origin"]): boolean {
    return this.sources.some((source) => source.failure !== undefined && canonicalJson(source.source.origin) === canonicalJson(origin));
  }

  /** Stops listening, waits for the pending re-lists, and closes every source. */
  async close(): Promise<void> {
    for (const source of this.sources) source.unsubscribe();
    await this.settled();
    for (const source of this.sources) await source.source.close();
  }

  private schedule(source: ConnectedSource): Promise<ToolDrift[]> {
    const run = source.queue.then(() => this.relist(source));
    // The queue never rejects: a failed re-list leaves the source marked stale instead.
    source.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Re-lists one source and diffs it against what it offered: renames, removals, additions, changes. */
  private async relist(source: ConnectedSource): Promise<ToolDrift[]> {
    let listed: ToolRevisionV1[];
    try {
      listed = await listRevisions(source.source, source.options);
      source.failure = undefined;
    } catch (error) {
      source.failure = error;
      throw error;
    }
    const { tools } = this;
    const before = new Map(
      [...source.names].flatMap((name) => {
        const revision = tools.liveByName.get(name);
        return revision ? [[name, revision] as const] : [];
      }),
    );
    const after = new Map(listed.map((revision) => [revision.name, revision]));
    const drifts: ToolDrift[] = [];
    const removed = sortByName([...before.values()].filter((revision) => !after.has(revision.name)));
    const added = sortByName([...after.values()].filter((revision) => !before.has(revision.name) && tools.conflictOf(revision) === undefined));
    for (const gone of removed) {
      const index = added.findIndex((candidate) => tools.bodyOf(candidate) === tools.bodyOf(gone));
      if (index >= 0) {
        const [target] = added.splice(index, 1);
        const kept = tools.install(target!).revision;
        drifts.push({ toolName: gone.name, pinned: gone.digest, offered: kept.digest, changes: ["renamed"], renamedTo: kept.name });
        source.names.add(kept.name);
      } else {
        drifts.push({ toolName: gone.name, pinned: gone.digest, offered: null, changes: ["removed"] });
      }
      tools.liveByName.delete(gone.name);
      source.names.delete(gone.name);
    }
    for (const fresh of added) {
      const kept = tools.install(fresh).revision;
      source.names.add(kept.name);
      drifts.push({ toolName: kept.name, pinned: null, offered: kept.digest, changes: ["added"] });
    }
    for (const revision of sortByName([...after.values()].filter((candidate) => before.has(candidate.name)))) {
      const { drift } = tools.install(revision);
      if (drift) drifts.push(drift);
    }
    const ordered = sortByName(drifts.map((drift) => ({ ...drift, name: drift.toolName }))).map(({ name: _name, ...drift }) => drift as ToolDrift);
    tools.events.push(...ordered);
    return ordered;
  }
}
