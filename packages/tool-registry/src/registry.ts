import {
  YokeError,
  type Clock,
  type DiscoveryRequest,
  type OfferedTools,
  type ReadmissionRule,
  type RegistrationOptions,
  type AnyToolDeclaration,
  type ToolFilter,
  type ToolRegistryV1,
  type ToolRevisionRecord,
  type ToolRevisionV1,
  type ToolSnapshot,
} from "@yoke/protocol";
import { identityPartOf, modelPartOf, recordOf, revisionOf, sha256OfJson } from "./digests.js";
import { matchesFilter, setDigestOf, sortByName } from "./discovery.js";
import { type LifecycleState, LiveTools } from "./live-tools.js";
import { firstAdmittingRule } from "./readmission.js";
import { resolvePinned } from "./resolution.js";
import { SourceSync } from "./source-sync.js";

export type { LifecycleState } from "./live-tools.js";

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
  const tools = new LiveTools();
  let closed = false;
  const sources = new SourceSync(tools, () => closed);
  const lifecycleOf = (name: string): LifecycleState => tools.lifecycleOf(name);
  const ensureOpen = () => {
    if (closed) throw new YokeError("CONFIG_INVALID", "the tool registry is closed");
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
      const conflict = tools.conflictOf(revision);
      if (conflict) throw conflict;
      return tools.installRecorded(revision);
    },

    async addSource(source, registration) {
      ensureOpen();
      return sources.add(source, registration);
    },

    async refresh() {
      ensureOpen();
      return sources.refresh();
    },

    setLifecycle(name, lifecycle, reason) {
      if (!["active", "deprecated", "withdrawn"].includes(lifecycle)) {
        throw new YokeError("CONFIG_INVALID", `lifecycle must be active, deprecated or withdrawn, not ${String(lifecycle)}`, { details: { tool: name } });
      }
      if (!tools.known(name)) {
        throw new YokeError("CONFIG_INVALID", `no tool named ${name} was ever registered`, { details: { tool: name } });
      }
      tools.lifecycles.set(name, {
        lifecycle,
        ...(reason === undefined ? {} : { reason }),
        ...(options.clock === undefined ? {} : { since: options.clock.now() }),
      });
    },

    snapshot() {
      const revisions = sortByName([...tools.liveByName.values()].filter((revision) => lifecycleOf(revision.name).lifecycle === "active")).map(recordOf);
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

    resolve(pinned: ToolRevisionRecord) {
      return resolvePinned(pinned, tools, sources);
    },

    readmissionRule(drift, offered) {
      return firstAdmittingRule(rules, drift, offered);
    },

    compatibilityEvents() {
      return [...tools.events];
    },

    async close() {
      if (closed) return;
      closed = true;
      await sources.close();
    },

    revision(digest) {
      return tools.byDigest.get(digest);
    },

    live(name) {
      return tools.liveByName.get(name);
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
