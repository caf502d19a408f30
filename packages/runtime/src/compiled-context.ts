import type { TurnTools } from "./pinned-tools.js";
import { forkArtifacts } from "./subagents/fork-source.js";
import type { SessionHistory } from "./sessions/session-history.js";
import {
  ContextRevisionSchema,
  ManifestDeltaSchema,
  applyManifestDelta,
  type CompileResult,
  type ContextRevision,
  type Manifest,
  type ManifestDelta,
  type SourceMessage,
} from "@yoke/context-compiler";
import {
  YokeError,
  canonicalJson,
  isJsonObject,
  type CallSettings,
  type EventData,
  type JournalEvent,
  type JsonValue,
  type ModelRequest,
  type YokeEvent,
} from "@yoke/protocol";

/**
 * What one `start` or `resume` knows about the run's compiled context, kept current from the
 * events it appends or reads: the last journaled manifest (the base of the next delta), the
 * artifacts and compactions already journaled, and the request of the last `model.requested`.
 */
export interface CompiledContext {
  /** The manifest of the last `context.compiled`: the next delta's base. */
  manifest: Manifest | undefined;
  readonly artifacts: Set<string>;
  readonly compactions: ContextRevision[];
  /**
   * The last `model.requested`; `compiled` when a `context.compiled` with its hash precedes it;
   * `settings`: the run's settings it was compiled under.
   */
  requested: { readonly turnId: string; readonly requestHash: string; readonly compiled: boolean; readonly settings: CallSettings | undefined } | undefined;
  /** The run's settings in effect (`run.started.settings`, then the last `settings.changed`). */
  settings: CallSettings | undefined;
  /** The request this process compiled for `requested`, if it did (not after a resume). */
  request: { readonly requestHash: string; readonly request: ModelRequest } | undefined;
  /**
   * The transcript sources of the last compile, extended as messages are added, so the
   * compiler's per-message caches hit (see `contextInputOf`).
   */
  transcript: readonly SourceMessage[];
  lastCompiledHash: string | undefined;
  /** The conversation of the session's earlier runs (`run.started.continues`), loaded and checked once per start or resume; undefined for a session's first run. */
  history?: SessionHistory | undefined;
  /** The tools of the last offered set compiled (a run with pinned tools), reused while the set is the same. */
  offered?: TurnTools | undefined;
}

export function createCompiledContext(): CompiledContext {
  return {
    manifest: undefined,
    artifacts: new Set(),
    compactions: [],
    requested: undefined,
    settings: undefined,
    request: undefined,
    transcript: [],
    lastCompiledHash: undefined,
  };
}

/**
 * A delta as journaled: without what the event already says (`set.requestHash`,
 * `set.revision`: the event's own `requestHash` and `revision`) or the previous
 * `context.compiled` does (`base`: its `requestHash`; the journal's hash chain fixes the
 * order). This keeps a turn's row under SQLite's local-payload limit (see docs/decisions/0003).
 */
export function journaledDelta(delta: ManifestDelta): Record<string, JsonValue> {
  const { base: _base, set, ...rest } = delta;
  const { requestHash: _hash, revision: _revision, ...fields } = set;
  const journaled: unknown = JSON.parse(canonicalJson({ ...rest, set: fields }));
  if (!isJsonObject(journaled)) throw new YokeError("INTERNAL", "the context compiler's manifest delta is not plain JSON");
  return journaled;
}

/**
 * Parses a journaled manifest delta with the compiler's schema, restoring what
 * `journaledDelta` left out; `base` is the request hash of the run's previous
 * `context.compiled` (null for the first). JOURNAL_CORRUPT names the event.
 */
export function parseManifestDelta(event: Pick<JournalEvent, "seq">, data: EventData<"context.compiled">, base: string | null): ManifestDelta {
  const journaled = data.manifestDelta as { set?: Record<string, JsonValue> };
  const value = { ...journaled, base, set: { ...journaled.set, requestHash: data.requestHash, revision: data.revision } };
  const parsed = ManifestDeltaSchema.safeParse(value);
  if (!parsed.success) {
    throw new YokeError("JOURNAL_CORRUPT", `event ${event.seq} (context.compiled) has an invalid manifest delta: ${parsed.error.message}`, {
      details: { seq: event.seq },
      cause: parsed.error,
    });
  }
  return parsed.data;
}

/** Records artifacts another event already journals (a child's fork, in its `run.started`): no `context.compiled` repeats them. */
export function noteJournaledArtifacts(compiled: CompiledContext, hashes: Iterable<string>): void {
  for (const hash of hashes) compiled.artifacts.add(hash);
}

/**
 * Keeps `compiled` current with one stored event (appended by this process or read on
 * resume); `compiles`: what this process compiled for the requests it appended, by hash.
 */
export function observeCompiled(compiled: CompiledContext, event: YokeEvent, compiles?: ReadonlyMap<string, CompileResult>): void {
  if (event.type === "settings.changed") {
    compiled.settings = event.data.settings;
  } else if (event.type === "run.started") {
    compiled.settings = event.data.settings;
    noteJournaledArtifacts(compiled, forkArtifacts(event.data.parent?.fork).keys());
  } else if (event.type === "context.compiled") {
    const data = event.data;
    const staged = compiles?.get(data.requestHash);
    if (staged !== undefined) {
      compiled.manifest = staged.manifest;
      compiled.request = { requestHash: data.requestHash, request: staged.request };
    } else {
      compiled.manifest = applyManifestDelta(compiled.manifest, parseManifestDelta(event, data, compiled.manifest?.requestHash ?? null));
      compiled.request = undefined;
    }
    for (const artifact of data.artifacts ?? []) compiled.artifacts.add(artifact.hash);
    for (const compaction of data.compactions ?? []) compiled.compactions.push(ContextRevisionSchema.parse(compaction));
    compiled.lastCompiledHash = data.requestHash;
  } else if (event.type === "model.requested") {
    const data = event.data;
    compiled.requested = {
      turnId: data.turnId,
      requestHash: data.requestHash,
      compiled: compiled.lastCompiledHash === data.requestHash,
      settings: compiled.settings,
    };
    if (compiled.request?.requestHash !== data.requestHash) compiled.request = undefined;
    compiled.lastCompiledHash = undefined;
  }
}
