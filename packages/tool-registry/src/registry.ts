import {
  YokeError,
  canonicalJson,
  type Clock,
  type DiscoveryRequest,
  type OfferedTools,
  type ReadmissionRule,
  type RegistrationOptions,
  type SourceRegistrationOptions,
  type AnyToolDeclaration,
  type ToolDrift,
  type ToolFilter,
  type ToolLifecycle,
  type ToolRegistryV1,
  type ToolResolution,
  type ToolRevisionRecord,
  type ToolRevisionV1,
  type ToolSnapshot,
  type ToolSourceV1,
} from "@yoke/protocol";
import { bodyDigestOf, changesBetween } from "./changes.js";
import { identityPartOf, modelPartOf, recordOf, revisionOf, sha256OfJson } from "./digests.js";
import { matchesFilter, setDigestOf, sortByName } from "./discovery.js";
import { firstAdmittingRule } from "./readmission.js";
import { connectSource, listRevisions, type ConnectedSource } from "./sources.js";

/**
 * Options of `createToolRegistry`.
 *
 * @example
 * ```ts
 * createToolRegistry({
 *   tools: [readFile, writeFile],
 *   readmission: [{ id: "docs-from-acme", changes: ["description"], trustDomains: ["acme"] }],
 *   grants: { "user:alice": { capabilities: ["fs.read", "fs.write"] }, "*": { sideEffects: ["none"] } },
 * });
 * ```
 */
export interface ToolRegistryOptions {
  /** Local tools to register at once (trust domain `local`, origin `{ kind: "local", source }`). */
  readonly tools?: readonly AnyToolDeclaration[];
  /** Declared re-admission rules, tried in order. Default none: nothing drifted is callable. */
  readonly readmission?: readonly ReadmissionRule[];
  /** The `source` of the local origin of tools registered without one. Default `"local"`. */
  readonly source?: string;
  /** Stamps lifecycle changes (`lifecycleOf(name).since`). Default: none are stamped. */
  readonly clock?: Clock;
  /**
   * What each principal may discover. When present, a principal is offered only the tools
   * its filter (or the `"*"` entry's, when it has none) admits, and a principal with neither
   * is offered nothing. Absent: every principal may discover every tool.
   */
  readonly grants?: Readonly<Record<string, ToolFilter>>;
  /** A further filter from the request (the task, say): undefined admits everything. */
  readonly discoveryFilter?: (request: DiscoveryRequest) => ToolFilter | undefined;
}

/** A tool name's lifecycle, why it was set, and when (by the registry's clock, when it has one). */
export interface LifecycleState {
  readonly lifecycle: ToolLifecycle;
  readonly reason?: string;
  readonly since?: number;
}

/**
 * The registry `createToolRegistry` returns: `ToolRegistryV1` and a few inspection methods.
 *
 * @example
 * ```ts
 * const registry: ToolRegistry = createToolRegistry({ tools: [readFile] });
 * registry.live("read_file")?.digest; // the revision offered now
 * registry.revision(pinnedDigest)?.declaration; // any revision registered in this process
 * registry.lifecycleOf("read_file"); // { lifecycle: "active" }
 * ```
 */
export interface ToolRegistry extends ToolRegistryV1 {
  register(tool: AnyToolDeclaration, options?: RegistrationOptions & { readonly source?: string }): ToolRevisionV1;
  /** Any revision registered in this process, by digest (including ones no longer live). */
  revision(digest: string): ToolRevisionV1 | undefined;
  /** The revision a source offers now under `name`, whatever its lifecycle. */
  live(name: string): ToolRevisionV1 | undefined;
  lifecycleOf(name: string): LifecycleState;
}

const originKey = (revision: ToolRevisionRecord) => canonicalJson(revision.origin);

/**
 * Creates an in-process tool registry: local tools and remote sources register immutable
 * revisions; `snapshot` is what a run pins; `discover` what a turn is offered; `resolve`
 * tells whether a pinned revision may still be called, and the drift when it may not.
 *
 * @example
 * ```ts
 * const registry = createToolRegistry({ tools: [readFile], readmission: [{ id: "docs-only", changes: ["description"] }] });
 * const snapshot = registry.snapshot(); // pin it in run.started
 * const offered = registry.discover(snapshot, { principal: "user_1", task: "summarize notes" });
 * const resolution = await registry.resolve(snapshot.revisions[0]!);
 * if (resolution.status === "callable") await resolution.revision.declaration.execute(input, context);
 * ```
 */
export function createToolRegistry(options: ToolRegistryOptions = {}): ToolRegistry {
  const defaultSource = options.source ?? "local";
  const rules = [...(options.readmission ?? [])];
  const byDigest = new Map<string, ToolRevisionV1>();
  const liveByName = new Map<string, ToolRevisionV1>();
  const lifecycles = new Map<string, LifecycleState>();
  const events: ToolDrift[] = [];
  const sources: ConnectedSource[] = [];
  const bodies = new Map<string, string>();
  let closed = false;

  const bodyOf = (record: ToolRevisionRecord): string => {
    let body = bodies.get(record.digest);
    if (body === undefined) {
      body = bodyDigestOf(record);
      if (byDigest.has(record.digest)) bodies.set(record.digest, body);
    }
    return body;
  };
  const lifecycleOf = (name: string): LifecycleState => lifecycles.get(name) ?? { lifecycle: "active" };
  const stored = (revision: ToolRevisionV1): ToolRevisionV1 => {
    const known = byDigest.get(revision.digest);
    if (known) return known;
    byDigest.set(revision.digest, revision);
    return revision;
  };
  const ensureOpen = () => {
    if (closed) throw new YokeError("CONFIG_INVALID", "the tool registry is closed");
  };
  const conflictOf = (revision: ToolRevisionRecord): YokeError | undefined => {
    const holder = liveByName.get(revision.name);
    if (holder === undefined || originKey(holder) === originKey(revision)) return undefined;
    return new YokeError("TOOL_REGISTRATION_CONFLICT", `tool ${revision.name} is already registered from another origin`, {
      details: { tool: revision.name, holder: holder.origin, offered: revision.origin },
    });
  };

  /** Makes `revision` the live one of its name; records the drift when it replaces another. */
  const install = (revision: ToolRevisionV1): { revision: ToolRevisionV1; drift?: ToolDrift } => {
    const previous = liveByName.get(revision.name);
    const kept = stored(revision);
    liveByName.set(revision.name, kept);
    if (previous === undefined || previous.digest === kept.digest) return { revision: kept };
    return { revision: kept, drift: { toolName: kept.name, pinned: previous.digest, offered: kept.digest, changes: changesBetween(previous, kept) } };
  };

  /** Waits for the pending re-lists of the sources of `origin` (all sources without one). */
  const settled = async (origin?: ToolRevisionRecord["origin"]): Promise<void> => {
    const key = origin === undefined ? undefined : canonicalJson(origin);
    for (;;) {
      const waited = sources.filter((source) => key === undefined || canonicalJson(source.source.origin) === key);
      const pending = waited.map((source) => source.queue);
      await Promise.all(pending);
      if (waited.every((source, index) => source.queue === pending[index])) return;
    }
  };

  /** Re-lists one source and diffs it against what it offered: renames, removals, additions, changes. */
  const relist = async (source: ConnectedSource): Promise<ToolDrift[]> => {
    let listed: ToolRevisionV1[];
    try {
      listed = await listRevisions(source.source, source.options);
      source.failure = undefined;
    } catch (error) {
      source.failure = error;
      throw error;
    }
    const before = new Map(
      [...source.names].flatMap((name) => {
        const revision = liveByName.get(name);
        return revision ? [[name, revision] as const] : [];
      }),
    );
    const after = new Map(listed.map((revision) => [revision.name, revision]));
    const drifts: ToolDrift[] = [];
    const removed = sortByName([...before.values()].filter((revision) => !after.has(revision.name)));
    const added = sortByName([...after.values()].filter((revision) => !before.has(revision.name) && conflictOf(revision) === undefined));
    for (const gone of removed) {
      const index = added.findIndex((candidate) => bodyOf(candidate) === bodyOf(gone));
      if (index >= 0) {
        const [target] = added.splice(index, 1);
        const kept = install(target!).revision;
        drifts.push({ toolName: gone.name, pinned: gone.digest, offered: kept.digest, changes: ["renamed"], renamedTo: kept.name });
        source.names.add(kept.name);
      } else {
        drifts.push({ toolName: gone.name, pinned: gone.digest, offered: null, changes: ["removed"] });
      }
      liveByName.delete(gone.name);
      source.names.delete(gone.name);
    }
    for (const fresh of added) {
      const kept = install(fresh).revision;
      source.names.add(kept.name);
      drifts.push({ toolName: kept.name, pinned: null, offered: kept.digest, changes: ["added"] });
    }
    for (const revision of sortByName([...after.values()].filter((candidate) => before.has(candidate.name)))) {
      const { drift } = install(revision);
      if (drift) drifts.push(drift);
    }
    const ordered = sortByName(drifts.map((drift) => ({ ...drift, name: drift.toolName }))).map(({ name: _name, ...drift }) => drift as ToolDrift);
    events.push(...ordered);
    return ordered;
  };

  const schedule = (source: ConnectedSource): Promise<ToolDrift[]> => {
    const run = source.queue.then(() => relist(source));
    // The queue never rejects: a failed re-list leaves the source marked stale instead.
    source.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  };

  const registry: ToolRegistry = {
    specificationVersion: "v1",

    register(tool, registration = {}) {
      ensureOpen();
      const revision = revisionOf(tool, {
        origin: { kind: "local", source: registration.source ?? defaultSource },
        trustDomain: registration.trustDomain ?? "local",
        ...(registration.capabilities === undefined ? {} : { capabilities: registration.capabilities }),
      });
      const conflict = conflictOf(revision);
      if (conflict) throw conflict;
      const { revision: kept, drift } = install(revision);
      if (drift) events.push(drift);
      return kept;
    },

    async addSource(source: ToolSourceV1, registration: SourceRegistrationOptions) {
      ensureOpen();
      if (sources.some((known) => canonicalJson(known.source.origin) === canonicalJson(source.origin))) {
        throw new YokeError("CONFIG_INVALID", "a source of this origin is already added", { details: { origin: source.origin } });
      }
      const connected: ConnectedSource = { source, options: registration, names: new Set(), queue: Promise.resolve(), unsubscribe: () => undefined };
      // Subscribed before the first listing: a change announced while it runs is re-listed after it.
      let ready = false;
      let missed = false;
      connected.unsubscribe = source.onListChanged(() => {
        if (closed) return;
        if (ready) void schedule(connected).catch(() => undefined);
        else missed = true;
      });
      let listed: ToolRevisionV1[];
      try {
        listed = await connectSource(source, registration);
      } catch (error) {
        connected.unsubscribe();
        throw error;
      }
      const conflict = listed.map(conflictOf).find((error) => error !== undefined);
      if (conflict) {
        connected.unsubscribe();
        await source.close().catch(() => undefined);
        throw conflict;
      }
      const kept = listed.map((revision) => {
        const installed = install(revision);
        if (installed.drift) events.push(installed.drift);
        connected.names.add(revision.name);
        return installed.revision;
      });
      sources.push(connected);
      ready = true;
      if (missed) void schedule(connected).catch(() => undefined);
      return kept;
    },

    async refresh() {
      ensureOpen();
      const found: ToolDrift[] = [];
      let failure: unknown;
      for (const source of sources) {
        try {
          found.push(...(await schedule(source)));
        } catch (error) {
          failure ??= error;
        }
      }
      if (failure !== undefined) throw failure;
      return found;
    },

    setLifecycle(name, lifecycle, reason) {
      if (!["active", "deprecated", "withdrawn"].includes(lifecycle)) {
        throw new YokeError("CONFIG_INVALID", `lifecycle must be active, deprecated or withdrawn, not ${String(lifecycle)}`, { details: { tool: name } });
      }
      if (!liveByName.has(name) && ![...byDigest.values()].some((revision) => revision.name === name)) {
        throw new YokeError("CONFIG_INVALID", `no tool named ${name} was ever registered`, { details: { tool: name } });
      }
      lifecycles.set(name, {
        lifecycle,
        ...(reason === undefined ? {} : { reason }),
        ...(options.clock === undefined ? {} : { since: options.clock.now() }),
      });
    },

    snapshot() {
      const revisions = sortByName([...liveByName.values()].filter((revision) => lifecycleOf(revision.name).lifecycle === "active")).map(recordOf);
      return { digest: setDigestOf(revisions), revisions };
    },

    discover(snapshot: ToolSnapshot, request: DiscoveryRequest): OfferedTools {
      const grant = options.grants === undefined ? undefined : (options.grants[request.principal] ?? options.grants["*"]);
      if (options.grants !== undefined && grant === undefined) return Object.freeze({ digest: setDigestOf([]), revisions: Object.freeze([]) });
      const extra = options.discoveryFilter?.(request);
      const revisions = sortByName(
        snapshot.revisions.filter(
          (revision) =>
            lifecycleOf(revision.name).lifecycle !== "withdrawn" &&
            matchesFilter(revision, grant) &&
            matchesFilter(revision, extra) &&
            matchesFilter(revision, request.filter),
        ),
      );
      return Object.freeze({ digest: setDigestOf(revisions), revisions: Object.freeze(revisions) });
    },

    async resolve(pinned: ToolRevisionRecord): Promise<ToolResolution> {
      // Only the pinned tool's own source can change it (a rename keeps the origin): a source
      // that is slow to re-list holds up its own tools, not the others.
      await settled(pinned.origin);
      const state = lifecycleOf(pinned.name);
      if (state.lifecycle === "withdrawn") return { status: "withdrawn", ...(state.reason === undefined ? {} : { reason: state.reason }) };
      const stale = sources.find((source) => source.failure !== undefined && canonicalJson(source.source.origin) === canonicalJson(pinned.origin));
      if (stale) return { status: "unavailable", reason: `the source of ${pinned.name} could not be re-listed, so what it offers now is unknown` };
      const live = liveByName.get(pinned.name);
      if (live !== undefined && live.digest === pinned.digest) return { status: "callable", revision: live };
      if (live !== undefined) {
        const changes = changesBetween(pinned, live);
        if (changes.length === 0) return { status: "unavailable", reason: `the pinned record of ${pinned.name} does not match its digest` };
        return { status: "drifted", drift: { toolName: pinned.name, pinned: pinned.digest, offered: live.digest, changes }, offered: live };
      }
      const body = bodyOf(pinned);
      const renamed = sortByName([...liveByName.values()]).find(
        (candidate) => lifecycleOf(candidate.name).lifecycle !== "withdrawn" && bodyOf(candidate) === body,
      );
      if (renamed) {
        return {
          status: "drifted",
          drift: { toolName: pinned.name, pinned: pinned.digest, offered: renamed.digest, changes: ["renamed"], renamedTo: renamed.name },
          offered: renamed,
        };
      }
      const sourceHere = sources.some((source) => canonicalJson(source.source.origin) === canonicalJson(pinned.origin));
      if (byDigest.has(pinned.digest) || sourceHere) {
        return { status: "drifted", drift: { toolName: pinned.name, pinned: pinned.digest, offered: null, changes: ["removed"] } };
      }
      return { status: "unavailable", reason: `no registered source offers ${pinned.name}` };
    },

    readmissionRule(drift, offered) {
      return firstAdmittingRule(rules, drift, offered);
    },

    compatibilityEvents() {
      return [...events];
    },

    async close() {
      if (closed) return;
      closed = true;
      for (const source of sources) source.unsubscribe();
      await settled();
      for (const source of sources) await source.source.close();
    },

    revision(digest) {
      return byDigest.get(digest);
    },

    live(name) {
      return liveByName.get(name);
    },

    lifecycleOf,
  };

  for (const tool of options.tools ?? []) registry.register(tool);
  return registry;
}

/**
 * Whether a record's three digests are the ones its content gives (a record read back from a
 * journal, say).
 *
 * @example
 * ```ts
 * verifyRevisionRecord(state.toolSnapshot.revisions[0]); // false when the record was edited after it was pinned
 * ```
 */
export function verifyRevisionRecord(record: ToolRevisionRecord): boolean {
  return (
    sha256OfJson(modelPartOf(record)) === record.modelDigest &&
    sha256OfJson(record.contract) === record.contractDigest &&
    sha256OfJson(identityPartOf(record)) === record.digest
  );
}
