// Optional evidence, filled by priority into the tokens left after mandatory state, the
// transcript and the output reserve.
import { evidenceEntry, type EvidenceEntry } from "./entries.js";
import { MESSAGE_OVERHEAD_TOKENS, type EvidenceItem } from "./input.js";
import type { ManifestItem } from "./manifest-schema.js";
import { EVIDENCE_HEADING } from "./render.js";
import type { TokenCounter } from "./tokenizer.js";

export interface EvidenceFill {
  readonly included: EvidenceEntry[];
  readonly items: ManifestItem[];
  readonly tokens: number;
}

const cache = new WeakMap<EvidenceItem, Map<string, EvidenceEntry>>();

// A cache only: evidenceEntry is pure, so a miss gives the same entry, more slowly.
function entryFor(item: EvidenceItem, nonce: string, counter: TokenCounter): EvidenceEntry {
  let byKey = cache.get(item);
  if (byKey === undefined) cache.set(item, (byKey = new Map()));
  // An exact counter has no charsPerToken: its key stays apart from every estimate's.
  const key = `${nonce}:${counter.encoding}:${counter.charsPerToken ?? ""}`;
  let entry = byKey.get(key);
  if (entry === undefined) byKey.set(key, (entry = evidenceEntry(item, nonce, counter)));
  return entry;
}

/**
 * Evidence sorted by priority (higher first, then id), each included whole when it fits in
 * `free` tokens and recorded as omitted (reason `budget`) when it does not. The evidence
 * message's own overhead is paid by the first item included.
 */
export function fillEvidence(evidence: readonly EvidenceItem[], free: number, nonce: string, counter: TokenCounter, messageIndex: number): EvidenceFill {
  // Highest priority first, then by id (pinned by evidence-order.mutation.test.ts).
  const sorted = evidence.slice().sort((a, b) => b.priority - a.priority || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const included: EvidenceEntry[] = [];
  const omitted: ManifestItem[] = [];
  const items: ManifestItem[] = [];
  let left = free;
  let tokens = 0;
  for (const item of sorted) {
    const entry = entryFor(item, nonce, counter);
    const framing = included.length === 0 ? MESSAGE_OVERHEAD_TOKENS + counter.count(EVIDENCE_HEADING) : 0;
    const base = { id: item.id, kind: item.kind, trust: entry.trust, section: "evidence" as const, priority: item.priority, contentHash: entry.hash };
    if (entry.tokens + framing <= left) {
      left -= entry.tokens + framing;
      tokens += entry.tokens;
      included.push(entry);
      items.push({ ...base, decision: "included", message: messageIndex, tokens: entry.tokens });
    } else {
      omitted.push({ ...base, decision: "omitted", reason: "budget", tokens: entry.tokens });
    }
  }
  items.push(...omitted);
  return { included, items, tokens };
}
