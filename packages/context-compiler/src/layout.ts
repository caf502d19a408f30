// Lays the fixed messages, summaries and transcript out in request order and totals their
// tokens by section: the input to the budget decisions in `compile`. A layout whose
// transcript the next input extends is extended, not rebuilt, so a turn's cost does not
// grow with the history.
import type { Message } from "@yoke/protocol";
import type { Artifact } from "./artifacts.js";
import { resolveCompactions, type CompactionCandidate, type ResolvedCompactions } from "./compaction.js";
import type { ContextRevision } from "./compaction-types.js";
import { reindexed, summaryEntry, type Entry, type ToolsEntry } from "./entries.js";
import { MESSAGE_OVERHEAD_TOKENS, type ContextInput, type SourceMessage } from "./input.js";
import type { ManifestItem, Section } from "./manifest-schema.js";
import { defaultTrust } from "./render.js";
import type { TokenCounter } from "./tokenizer.js";

/**
 * Per-message columns of a layout, shared by the layouts that extend one another and only
 * ever appended to: a layout reads the first `count` of each. A turn that extends the last
 * layout appends to them instead of copying the history (no per-turn O(history) garbage).
 */
export interface Columns {
  /** System, task, then summaries and transcript messages, in request order. */
  readonly entries: Entry[];
  readonly messages: Message[];
  readonly frames: string[];
  readonly artifacts: Artifact[];
  readonly items: ManifestItem[];
  /** Shown summaries and transcript messages, for compaction. */
  readonly candidates: CompactionCandidate[];
  /** The transcript sources laid out, to tell whether the next input extends them. */
  readonly sources: SourceMessage[];
}

/** How much of each column a layout covers. */
export interface ColumnCounts {
  readonly entries: number;
  readonly artifacts: number;
  readonly items: number;
  readonly candidates: number;
  readonly sources: number;
}

export interface Layout {
  readonly columns: Columns;
  readonly count: ColumnCounts;
  /** UTF-8 bytes of the layout's frames. */
  readonly bytes: number;
  readonly sections: Record<Section, number>;
  readonly overhead: number;
  /** Section totals plus overhead, before evidence. */
  readonly used: number;
  /** Tools, system, task, constraints and the open tool pair, with their overhead. */
  readonly mandatory: number;
  /** Index in the candidates of the open tool pair (the last assistant message); -1 when none (see `tailStartOf`). */
  readonly tailStart: number;
  readonly resolved: ResolvedCompactions;
  /** What the layout was built from besides its sources, to tell whether the next input extends it. */
  readonly basis: { readonly compactions: readonly ContextRevision[]; readonly fixed: readonly Entry[]; readonly tools: ToolsEntry; readonly nonce: string };
  readonly tailTokens: number;
  readonly shown: ReadonlySet<number>;
}

/**
 * The layout's compaction candidates (a copy: the columns may be extended by a later layout).
 */
export function candidatesOf(layout: Layout): CompactionCandidate[] {
  return layout.columns.candidates.slice(0, layout.count.candidates);
}

export interface LayoutOptions {
  readonly input: ContextInput;
  readonly compactions: readonly ContextRevision[];
  /** The system and task entries. */
  readonly fixed: readonly Entry[];
  readonly tools: ToolsEntry;
  readonly nonce: string;
  readonly counter: TokenCounter;
  readonly transcript: (source: SourceMessage, index: number, nonce: string) => Entry;
}

// The two caches below only save work (a miss rebuilds equal entries and items); their keys are
// pinned by tests.
const summaries = new WeakMap<ContextRevision, Map<string, Entry>>();

function summaryFor(revision: ContextRevision, index: number, nonce: string, counter: TokenCounter): Entry {
  let byNonce = summaries.get(revision);
  if (byNonce === undefined) summaries.set(revision, (byNonce = new Map()));
  // An exact counter has no charsPerToken: its key stays apart from every estimate's.
  const key = `${nonce}:${counter.encoding}:${counter.charsPerToken ?? ""}`;
  let entry = byNonce.get(key);
  if (entry === undefined || entry.items[0]?.message !== index)
    byNonce.set(key, (entry = entry === undefined ? summaryEntry(revision, index, nonce, counter) : reindexed(entry, index)));
  return entry;
}

const compactedItems = new WeakMap<ContextRevision, Map<string, ManifestItem>>();

function compactedItem(source: SourceMessage, revision: ContextRevision, trust: ManifestItem["trust"]): ManifestItem {
  let byId = compactedItems.get(revision);
  if (byId === undefined) compactedItems.set(revision, (byId = new Map()));
  let item = byId.get(source.id);
  if (item === undefined || item.trust !== trust) {
    item = { id: source.id, kind: "message", trust, section: "transcript", decision: "compacted", reason: `summary:${revision.revision}`, tokens: 0 };
    byId.set(source.id, item);
  }
  return item;
}

// A plain object per message: cheaper than caching it (a WeakMap lookup costs more than this).
function candidateOf(entry: Entry, source: SourceMessage): CompactionCandidate {
  return { id: source.id, message: source.message, trust: entry.items[0]!.trust, tokens: entry.tokens + MESSAGE_OVERHEAD_TOKENS };
}

interface Draft {
  columns: Columns;
  bytes: number;
  sections: Record<Section, number>;
  tailStart: number;
  tailTokens: number;
  resolved: ResolvedCompactions;
  shown: Set<number>;
}

// Whether `previous` may be extended rather than built anew: false is always safe (a layout
// built anew equals the extended one, only slower), true only when every input it was built
// from is the same.
function extends_(previous: Layout | undefined, options: LayoutOptions): previous is Layout {
  if (previous === undefined) return false;
  const basis = previous.basis;
  const sources = options.input.transcript;
  if (basis.compactions.length !== options.compactions.length || basis.compactions.some((revision, index) => revision !== options.compactions[index]))
    return false;
  // The nonce check is defence in depth: a new nonce always comes with a new system entry (its
  // trust rule names the nonce), caught just below.
  if (basis.tools !== options.tools || basis.nonce !== options.nonce || basis.fixed.length !== options.fixed.length) return false;
  if (basis.fixed.some((entry, index) => entry !== options.fixed[index])) return false;
  const laidOut = previous.columns.sources;
  const count = previous.count.sources;
  if (sources.length < count) return false;
  for (let index = 0; index < count; index++) {
    const before = laidOut[index]!;
    const now = sources[index]!;
    if (before !== now && (before.message !== now.message || before.id !== now.id || before.trust !== now.trust)) return false;
  }
  return true;
}

/**
 * The columns to extend `previous` in: its own when it is their last writer (appending leaves
 * every layout before it intact), otherwise a copy of its part. A layout has no later writer
 * unless a compile threw while extending it (render-layout.mutation.test.ts), and addSource
 * pushes the source before anything else, so the sources check alone decides.
 */
function columnsAfter(previous: Layout): Columns {
  const { columns, count } = previous;
  if (
    columns.entries.length === count.entries &&
    columns.artifacts.length === count.artifacts &&
    columns.items.length === count.items &&
    columns.candidates.length === count.candidates &&
    columns.sources.length === count.sources
  ) {
    return columns;
  }
  return {
    entries: columns.entries.slice(0, count.entries),
    messages: columns.messages.slice(0, count.entries),
    frames: columns.frames.slice(0, count.entries),
    artifacts: columns.artifacts.slice(0, count.artifacts),
    items: columns.items.slice(0, count.items),
    candidates: columns.candidates.slice(0, count.candidates),
    sources: columns.sources.slice(0, count.sources),
  };
}

function append(draft: Draft, entry: Entry): void {
  const { columns } = draft;
  columns.entries.push(entry);
  columns.messages.push(entry.message);
  columns.frames.push(entry.frame);
  draft.bytes += entry.frameBytes;
  for (const artifact of entry.artifacts) columns.artifacts.push(artifact);
}

function addSource(draft: Draft, options: LayoutOptions, source: SourceMessage): void {
  const { columns } = draft;
  columns.sources.push(source);
  const revision = draft.resolved.owner.get(source.id);
  if (revision !== undefined) {
    if (!draft.shown.has(revision.revision)) {
      draft.shown.add(revision.revision);
      const entry = summaryFor(revision, columns.entries.length, options.nonce, options.counter);
      append(draft, entry);
      columns.items.push(entry.items[0]!);
      draft.sections.summary += entry.tokens;
      columns.candidates.push({
        id: `summary:${revision.revision}`,
        message: { role: "user", content: [{ type: "text", text: revision.summary }] },
        trust: revision.trust,
        tokens: entry.tokens + MESSAGE_OVERHEAD_TOKENS,
      });
    }
    columns.items.push(compactedItem(source, revision, source.trust ?? defaultTrust(source.message)));
    return;
  }
  const entry = options.transcript(source, columns.entries.length, options.nonce);
  append(draft, entry);
  columns.items.push(entry.items[0]!);
  draft.sections.transcript += entry.tokens;
  if (source.message.role === "assistant") {
    draft.tailStart = columns.candidates.length;
    draft.tailTokens = 0;
  }
  draft.tailTokens += entry.tokens + MESSAGE_OVERHEAD_TOKENS;
  columns.candidates.push(candidateOf(entry, source));
}

/** The layout of `options.input`, extending `previous` when the input's transcript extends its own. */
export function layoutContext(options: LayoutOptions, previous?: Layout): Layout {
  const { input } = options;
  let draft: Draft;
  if (extends_(previous, options)) {
    draft = {
      columns: columnsAfter(previous),
      bytes: previous.bytes,
      sections: { ...previous.sections },
      tailStart: previous.tailStart,
      tailTokens: previous.tailTokens,
      resolved: previous.resolved,
      // An empty set is not copied (a fresh one is as good).
      shown: previous.shown.size === 0 ? new Set() : new Set(previous.shown),
    };
  } else {
    draft = {
      columns: { entries: [], messages: [], frames: [], artifacts: [], items: [], candidates: [], sources: [] },
      bytes: 0,
      sections: { system: 0, tools: options.tools.tokens, task: 0, constraints: 0, transcript: 0, summary: 0, evidence: 0 },
      tailStart: -1,
      tailTokens: 0,
      resolved: resolveCompactions(options.compactions),
      shown: new Set(),
    };
    for (const entry of options.fixed) {
      append(draft, entry);
      for (const item of entry.items) {
        draft.columns.items.push(item);
        draft.sections[item.section] += item.tokens;
      }
    }
  }
  const { columns, sections } = draft;
  const sources = input.transcript;
  for (let index = columns.sources.length; index < sources.length; index++) addSource(draft, options, sources[index]!);
  const tailTokens = draft.tailStart < 0 ? 0 : draft.tailTokens;
  const overhead = columns.entries.length * MESSAGE_OVERHEAD_TOKENS;
  const fixedTokens = sections.system + sections.tools + sections.task + sections.constraints + options.fixed.length * MESSAGE_OVERHEAD_TOKENS;
  const used = sections.system + sections.tools + sections.task + sections.constraints + sections.transcript + sections.summary + overhead;
  return {
    columns,
    count: {
      entries: columns.entries.length,
      artifacts: columns.artifacts.length,
      items: columns.items.length,
      candidates: columns.candidates.length,
      sources: columns.sources.length,
    },
    bytes: draft.bytes,
    sections,
    overhead,
    used,
    mandatory: fixedTokens + tailTokens,
    tailStart: draft.tailStart,
    resolved: draft.resolved,
    basis: { compactions: options.compactions.slice(), fixed: options.fixed, tools: options.tools, nonce: options.nonce },
    tailTokens: draft.tailTokens,
    shown: draft.shown,
  };
}

/** Index in the layout's candidates where the open tool pair starts (the end when there is none). */
export function tailStartOf(layout: Layout): number {
  return layout.tailStart < 0 ? layout.count.candidates : layout.tailStart;
}
