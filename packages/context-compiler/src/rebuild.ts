import { YokeError, type Message, type ModelRequest } from "@yoke/protocol";
import { sha256Hex, type ArtifactSource } from "./artifacts.js";
import type { ContextInput, SourceMessage } from "./input.js";
import type { Manifest, ManifestItem } from "./manifest-schema.js";
import {
  evidenceBlock,
  frame,
  renderEvidenceMessage,
  renderSummaryMessage,
  renderSystemMessage,
  renderTaskMessage,
  renderTranscriptMessage,
  type RequestHeader,
} from "./render.js";

/** What a rebuild reads: the manifest, the run's own inputs (from its events) and the artifacts. */
export interface RebuildInput {
  readonly manifest: Manifest;
  /** The run's inputs at the manifest's revision, folded from the journal's events. */
  readonly source: Pick<ContextInput, "systemPrompt" | "task" | "transcript">;
  /** Artifacts by hash: constraint, evidence and summary texts, full tool outputs. */
  readonly artifacts: ArtifactSource;
}

export interface RebuildResult {
  readonly request: ModelRequest;
  readonly bytes: string;
  readonly requestHash: string;
  /** True when the rebuilt bytes hash to the manifest's `requestHash`. */
  readonly matches: boolean;
}

function missing(what: string, item: ManifestItem): YokeError {
  return new YokeError("JOURNAL_CORRUPT", `cannot rebuild the request: ${what} of item ${item.id} is not in the journal`, {
    details: { itemId: item.id, kind: item.kind, contentHash: item.contentHash },
  });
}

function artifactText(input: RebuildInput, item: ManifestItem): string {
  const text = item.contentHash === undefined ? undefined : input.artifacts.get(item.contentHash);
  if (text === undefined) throw missing("the artifact", item);
  return text;
}

function renderGroup(input: RebuildInput, group: readonly ManifestItem[], transcript: ReadonlyMap<string, SourceMessage>): Message {
  const { manifest, source } = input;
  const nonce = manifest.delimiterNonce;
  const first = group[0]!;
  switch (first.kind) {
    case "system_prompt":
    case "trust_rule":
    case "constraint":
      return renderSystemMessage({
        systemPrompt: group.some((item) => item.kind === "system_prompt") ? source.systemPrompt : undefined,
        nonce,
        constraints: group.filter((item) => item.kind === "constraint").map((item) => ({ id: item.id, text: artifactText(input, item) })),
      });
    case "task":
      return renderTaskMessage(source.task);
    case "summary":
      return renderSummaryMessage(
        { revision: Number(first.id.slice("summary:".length)), replaces: first.replaces ?? [], summary: artifactText(input, first), trust: first.trust },
        nonce,
      );
    case "message": {
      const found = transcript.get(first.id);
      if (found === undefined) throw missing("the message", first);
      return renderTranscriptMessage(found.message, first.id, first.trust, nonce, first.truncations ?? []);
    }
    case "evidence":
    case "memory":
      return renderEvidenceMessage(group.map((item) => evidenceBlock({ id: item.id, text: artifactText(input, item), trust: item.trust }, nonce)));
  }
}

/**
 * Rebuilds the exact request a manifest describes from journaled inputs alone: the run's
 * events (system prompt, task, transcript), the manifest (decisions, header, nonce) and the
 * artifacts it references. `matches` says whether the bytes hash to the recorded
 * `requestHash`. Throws JOURNAL_CORRUPT when a referenced message or artifact is missing.
 *
 * @example
 * ```ts
 * const manifest = deltas.slice(0, k + 1).reduce<Manifest | undefined>(applyManifestDelta, undefined)!;
 * const { matches, request } = rebuildRequest({ manifest, source, artifacts: new Map(stored) });
 * ```
 */
export function rebuildRequest(input: RebuildInput): RebuildResult {
  const { manifest } = input;
  const transcript = new Map(input.source.transcript.map((entry) => [entry.id, entry]));
  const groups: ManifestItem[][] = [];
  for (const item of manifest.items) {
    if (item.message === undefined) continue;
    (groups[item.message] ??= []).push(item);
  }
  const messages: Message[] = [];
  for (let index = 0; index < manifest.messageCount; index++) {
    const group = groups[index];
    if (group === undefined) {
      throw new YokeError("JOURNAL_CORRUPT", `cannot rebuild the request: no manifest item renders message ${index}`, { details: { message: index } });
    }
    messages.push(renderGroup(input, group, transcript));
  }
  const header = manifest.header as RequestHeader;
  const bytes = frame(header) + messages.map(frame).join("");
  const requestHash = sha256Hex(bytes);
  const request: ModelRequest = { ...header, messages, stablePrefixMessages: manifest.stablePrefix.messages };
  return { request, bytes, requestHash, matches: requestHash === manifest.requestHash };
}
