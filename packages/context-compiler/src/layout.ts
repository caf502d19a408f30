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

export interface Layout {
  /** System, task, then summaries and transcript messages, in request order. */
  readonly entries: Entry[];
  readonly messages: Message[];
  readonly frames: string[];
  readonly frameBytes: number[];
  readonly bytes: number;
  readonly artifacts: Artifact[];
  readonly items: ManifestItem[];
  readonly sections: Record<Section, number>;
  readonly overhead: number;
  /** Section totals plus overhead, before evidence. */
  readonly used: number;
  /** Tools, system, task, constraints and the open tool pair, with their overhead. */
  readonly mandatory: number;
  /** Shown summaries and transcript messages, for compaction. */
  readonly candidates: CompactionCandidate[];
  /** Index in `candidates` of the open tool pair (the last assistant message); -1 when none (see `tailStartOf`). */
  readonly tailStart: number;
  readonly resolved: ResolvedCompactions;
  /** What the layout was built from, to tell whether the next input extends it. */
  readonly basis: { readonly sources: readonly SourceMessage[]; readonly compactions: readonly ContextRevision[]; readonly fixed: readonly Entry[]; readonly tools: ToolsEntry; readonly nonce: string };
  readonly tailTokens: number;
  readonly shown: ReadonlySet<number>;
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

const summaries = new WeakMap<ContextRevision, Map<string, Entry>>();

function summaryFor(revision: ContextRevision, index: number, nonce: string, counter: TokenCounter): Entry {
  let byNonce = summaries.get(revision);
  if (byNonce === undefined) summaries.set(revision, (byNonce = new Map()));
  const key = `${nonce}:${counter.encoding}:${counter.charsPerToken ?? ""}`;
  let entry = byNonce.get(key);
  if (entry === undefined || entry.items[0]?.message !== index) byNonce.set(key, (entry = entry === undefined ? summaryEntry(revision, index, nonce, counter) : reindexed(entry, index)));
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

type Draft = { -readonly [K in keyof Layout]: Layout[K] } & { shown: Set<number> };

function extends_(previous: Layout | undefined, options: LayoutOptions): previous is Layout {
  if (previous === undefined) return false;
  const basis = previous.basis;
  const sources = options.input.transcript;
  if (basis.compactions.length !== options.compactions.length || basis.compactions.some((revision, index) => revision !== options.compactions[index])) return false;
  if (basis.tools !== options.tools || basis.nonce !== options.nonce || basis.fixed.length !== options.fixed.length) return false;
  if (basis.fixed.some((entry, index) => entry !== options.fixed[index])) return false;
  if (sources.length < basis.sources.length) return false;
  for (let index = 0; index < basis.sources.length; index++) {
    const before = basis.sources[index]!;
    const now = sources[index]!;
    if (before !== now && (before.message !== now.message || before.id !== now.id || before.trust !== now.trust)) return false;
  }
  return true;
}

function append(draft: Draft, entry: Entry): void {
  draft.entries.push(entry);
  draft.messages.push(entry.message);
  draft.frames.push(entry.frame);
  draft.frameBytes.push(entry.frameBytes);
  draft.bytes += entry.frameBytes;
  for (const artifact of entry.artifacts) draft.artifacts.push(artifact);
}

function addSource(draft: Draft, options: LayoutOptions, source: SourceMessage): void {
  const revision = draft.resolved.owner.get(source.id);
  if (revision !== undefined) {
    if (!draft.shown.has(revision.revision)) {
      draft.shown.add(revision.revision);
      const entry = summaryFor(revision, draft.entries.length, options.nonce, options.counter);
      append(draft, entry);
      draft.items.push(entry.items[0]!);
      draft.sections.summary += entry.tokens;
      draft.candidates.push({
        id: `summary:${revision.revision}`,
        message: { role: "user", content: [{ type: "text", text: revision.summary }] },
        trust: revision.trust,
        tokens: entry.tokens + MESSAGE_OVERHEAD_TOKENS,
      });
    }
    draft.items.push(compactedItem(source, revision, source.trust ?? defaultTrust(source.message)));
    return;
  }
  const entry = options.transcript(source, draft.entries.length, options.nonce);
  append(draft, entry);
  draft.items.push(entry.items[0]!);
  draft.sections.transcript += entry.tokens;
  if (source.message.role === "assistant") {
    draft.tailStart = draft.candidates.length;
    draft.tailTokens = 0;
  }
  draft.tailTokens += entry.tokens + MESSAGE_OVERHEAD_TOKENS;
  draft.candidates.push(candidateOf(entry, source));
}

/** The layout of `options.input`, extending `previous` when the input's transcript extends its own. */
export function layoutContext(options: LayoutOptions, previous?: Layout): Layout {
  const { input } = options;
  let draft: Draft;
  let from: number;
  if (extends_(previous, options)) {
    draft = {
      ...previous,
      entries: previous.entries.slice(),
      messages: previous.messages.slice(),
      frames: previous.frames.slice(),
      frameBytes: previous.frameBytes.slice(),
      artifacts: previous.artifacts.slice(),
      items: previous.items.slice(),
      sections: { ...previous.sections },
      candidates: previous.candidates.slice(),
      shown: new Set(previous.shown),
    };
    from = previous.basis.sources.length;
  } else {
    draft = {
      entries: [],
      messages: [],
      frames: [],
      frameBytes: [],
      bytes: 0,
      artifacts: [],
      items: [],
      sections: { system: 0, tools: options.tools.tokens, task: 0, constraints: 0, transcript: 0, summary: 0, evidence: 0 },
      overhead: 0,
      used: 0,
      mandatory: 0,
      candidates: [],
      tailStart: -1,
      resolved: resolveCompactions(options.compactions),
      basis: { sources: [], compactions: [], fixed: [], tools: options.tools, nonce: options.nonce },
      tailTokens: 0,
      shown: new Set(),
    };
    for (const entry of options.fixed) {
      append(draft, entry);
      for (const item of entry.items) {
        draft.items.push(item);
        draft.sections[item.section] += item.tokens;
      }
    }
    from = 0;
  }
  const sources = input.transcript;
  for (let index = from; index < sources.length; index++) addSource(draft, options, sources[index]!);
  const tailTokens = draft.tailStart < 0 ? 0 : draft.tailTokens;
  const { sections } = draft;
  const overhead = draft.entries.length * MESSAGE_OVERHEAD_TOKENS;
  const fixedTokens = sections.system + sections.tools + sections.task + sections.constraints + options.fixed.length * MESSAGE_OVERHEAD_TOKENS;
  const used = sections.system + sections.tools + sections.task + sections.constraints + sections.transcript + sections.summary + overhead;
  return {
    ...draft,
    overhead,
    used,
    mandatory: fixedTokens + tailTokens,
    // A copy: callers may append to their transcript array in place.
    basis: { sources: sources.slice(), compactions: options.compactions.slice(), fixed: options.fixed, tools: options.tools, nonce: options.nonce },
  };
}

/** Index in `layout.candidates` where the open tool pair starts (the end when there is none). */
export function tailStartOf(layout: Layout): number {
  return layout.tailStart < 0 ? layout.candidates.length : layout.tailStart;
}
