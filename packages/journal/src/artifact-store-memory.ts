import type { ArtifactStoreV1 } from "@yoke/protocol";
import { bytesOf, checkMaxBytes, hexOf, missing, refOf, verified } from "./artifact-bytes.js";

export interface MemoryArtifactStoreOptions {
  /** Largest artifact `put` accepts, in bytes; larger is TOOL_OUTPUT_TOO_LARGE. Default: no limit. */
  maxArtifactBytes?: number;
}

/**
 * An artifact store in memory, for tests and single-process use: the same contract as
 * `createFileArtifactStore`, nothing durable. It keeps a copy of what it is given and hands
 * out copies, so no caller can change what it holds.
 *
 * @example
 * ```ts
 * const store = createMemoryArtifactStore();
 * const ref = await store.put("a long log", { mediaType: "text/plain; charset=utf-8" });
 * new TextDecoder().decode(await store.get(ref)); // "a long log"
 * ```
 */
export function createMemoryArtifactStore(options: MemoryArtifactStoreOptions = {}): ArtifactStoreV1 {
  const maxBytes = checkMaxBytes(options.maxArtifactBytes);
  const held = new Map<string, Uint8Array>();
  return {
    specificationVersion: "v1",
    async put(content, meta) {
      const bytes = bytesOf(content);
      const ref = refOf(bytes, meta, maxBytes);
      const hex = ref.digest.slice("sha256:".length);
      if (!held.has(hex)) held.set(hex, Uint8Array.from(bytes));
      return ref;
    },
    async get(ref) {
      const hex = hexOf(ref);
      const bytes = hex === undefined ? undefined : held.get(hex);
      if (hex === undefined || bytes === undefined) throw missing(ref);
      return Uint8Array.from(verified(bytes, hex));
    },
    async has(ref) {
      const hex = hexOf(ref);
      return hex !== undefined && held.has(hex);
    },
  };
}
