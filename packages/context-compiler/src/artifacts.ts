import { createHash } from "node:crypto";

/**
 * Content the journal must keep because the request refers to it by hash: the full text of
 * a truncated tool output, an evidence or memory item, a compaction summary. Persist each
 * once (they are addressed by content) and hand them back to `rebuildRequest`.
 *
 * @example
 * ```ts
 * for (const artifact of result.artifacts) await store.put(artifact.hash, artifact.text);
 * ```
 */
export interface Artifact {
  /** SHA-256 of the UTF-8 text, hex. */
  readonly hash: string;
  readonly text: string;
  /**
   * `tool_output`: the full text of a cut tool result, which is the transcript's own text:
   * whoever keeps the transcript (a journal's tool events) already keeps it, and need not
   * store it again. Absent for texts found nowhere else (constraints, evidence, summaries).
   */
  readonly origin?: "tool_output";
}

/** Looks up an artifact's text by hash. A Map of hash → text is one. */
export interface ArtifactSource {
  get(hash: string): string | undefined;
}

/**
 * SHA-256 of the UTF-8 text, hex: the hash a manifest records for an item's text and an
 * `Artifact` is addressed by, so a reader can check a stored text against its manifest.
 *
 * @example
 * ```ts
 * if (sha256Hex(artifact.text) !== artifact.hash) throw new Error("the artifact store returned other text");
 * ```
 */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export function utf8Length(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/**
 * The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a
 * code point (a surrogate pair counts as one).
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return "";
  if (text.length * 3 <= maxBytes) return text;
  let bytes = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.codePointAt(index)!;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) break;
    bytes += size;
    index += code >= 0x10000 ? 2 : 1;
  }
  return text.slice(0, index);
}
