import { ManifestDeltaSchema, applyManifestDelta, type Manifest, type ManifestDelta, type ManifestItem } from "@yoke/context-compiler";
import { YokeError, type JsonValue, type YokeEventOf } from "@yoke/protocol";
import type { ManifestItemView, ManifestSummary } from "./run-view.js";

/**
 * The manifest delta a `context.compiled` event holds, completed with the fields the event
 * carries beside it (base, requestHash, revision), as the runtime journals it.
 */
export function manifestDeltaOf(event: YokeEventOf<"context.compiled">, base: string | null): ManifestDelta {
  const journaled = event.data.manifestDelta as { set?: Record<string, JsonValue> };
  const value = { ...journaled, base, set: { ...journaled.set, requestHash: event.data.requestHash, revision: event.data.revision } };
  const parsed = ManifestDeltaSchema.safeParse(value);
  if (!parsed.success) {
    throw new YokeError("JOURNAL_CORRUPT", `event ${event.seq} (context.compiled) has an invalid manifest delta: ${parsed.error.message}`, {
      details: { seq: event.seq },
    });
  }
  return parsed.data;
}

/** Applies one `context.compiled` to the manifest before it. */
export function nextManifest(previous: Manifest | undefined, event: YokeEventOf<"context.compiled">): { manifest: Manifest; delta: ManifestDelta } {
  const delta = manifestDeltaOf(event, previous?.requestHash ?? null);
  return { manifest: applyManifestDelta(previous, delta), delta };
}

function itemView(item: ManifestItem, added: boolean): ManifestItemView {
  return {
    id: item.id,
    kind: item.kind,
    trust: item.trust,
    section: item.section,
    decision: item.decision,
    reason: item.reason,
    tokens: item.tokens,
    truncations: item.truncations ?? [],
    added,
  };
}

/** What one compile decided: counts over the whole manifest, the items it added, and every item not rendered whole, with reasons. */
export function summarizeManifest(manifest: Manifest, delta: ManifestDelta, event: YokeEventOf<"context.compiled">): ManifestSummary {
  const counts = { included: 0, truncated: 0, omitted: 0, compacted: 0 };
  const trust: Record<string, number> = {};
  const items: ManifestItemView[] = [];
  manifest.items.forEach((item, index) => {
    counts[item.decision] += 1;
    trust[item.trust] = (trust[item.trust] ?? 0) + 1;
    const added = index >= delta.keep;
    if (added || item.decision !== "included") items.push(itemView(item, added));
  });
  const { allocation } = manifest;
  return {
    revision: manifest.revision,
    contextRevision: manifest.contextRevision,
    model: manifest.model,
    tokenizer: `${manifest.tokenizer.encoding} (${manifest.tokenizer.mode})`,
    requestBytes: manifest.requestBytes,
    counts,
    trust,
    items,
    kept: delta.keep,
    allocation: {
      contextWindow: allocation.contextWindow,
      outputReserve: allocation.outputReserve,
      mandatory: allocation.mandatory,
      sections: allocation.sections,
      overhead: allocation.overhead,
      used: allocation.used,
      free: allocation.free,
    },
    tools: manifest.tools.map((tool) => ({ name: tool.name, trust: tool.trust, tokens: tool.tokens })),
    artifacts: event.data.artifacts?.length ?? 0,
    compactions: event.data.compactions?.length ?? 0,
  };
}
