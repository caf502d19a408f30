import type { ArtifactStoreV2 } from "@yoke/protocol";
import { bytesOf, checkMaxBytes, hexOf, missing, refOf, tenantOf, verified } from "./artifact-bytes.js";

export interface MemoryArtifactStoreOptions {
  /** Largest artifact `put` accepts, in bytes; larger is TOOL_OUTPUT_TOO_LARGE. Default: no limit. */
  maxArtifactBytes?: number;
}

/**
 * An artifact store in memory, for tests and single-process use: the same contract as
 * `createFileArtifactStore`, nothing durable. Each tenant has its own map, so one tenant's
 * digest is absent for every other. It keeps a copy of what it is given and hands out copies,
 * so no caller can change what it holds.
 *
 * @example
 * ```ts
 * const store = createMemoryArtifactStore();
 * const ref = await store.put({ tenantId: "acme" }, "a long log", { mediaType: "text/plain; charset=utf-8" });
 * new TextDecoder().decode(await store.get({ tenantId: "acme" }, ref)); // "a long log"
 * await store.has({ tenantId: "globex" }, ref); // false
 * ```
 */
export function createMemoryArtifactStore(options: MemoryArtifactStoreOptions = {}): ArtifactStoreV2 {
  const maxBytes = checkMaxBytes(options.maxArtifactBytes);
  const tenants = new Map<string, Map<string, Uint8Array>>();
  return {
    specificationVersion: "v2",
    async put(scope, content, meta) {
      const tenantId = tenantOf(scope);
      const bytes = bytesOf(content);
      const ref = refOf(bytes, meta, maxBytes);
      const hex = ref.digest.slice("sha256:".length);
      let held = tenants.get(tenantId);
      if (held === undefined) tenants.set(tenantId, (held = new Map()));
      if (!held.has(hex)) held.set(hex, Uint8Array.from(bytes));
      return ref;
    },
    async get(scope, ref) {
      const held = tenants.get(tenantOf(scope));
      const hex = hexOf(ref);
      const bytes = hex === undefined ? undefined : held?.get(hex);
      if (hex === undefined || bytes === undefined) throw missing(ref);
      return Uint8Array.from(verified(bytes, hex));
    },
    async has(scope, ref) {
      const held = tenants.get(tenantOf(scope));
      const hex = hexOf(ref);
      return hex !== undefined && held?.has(hex) === true;
    },
  };
}
