import { z } from "zod/v4";

/** `sha256:` and 64 lowercase hex characters: the address of an artifact's bytes. */
export const ArtifactDigestSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/);
export type ArtifactDigest = z.infer<typeof ArtifactDigestSchema>;

/**
 * A reference to content stored out of line, by the SHA-256 of its bytes (strings are
 * stored as UTF-8). `bytes` is its length; `mediaType` says how to read it.
 *
 * @example
 * ```ts
 * const ref: ArtifactRef = { digest: `sha256:${"ab".repeat(32)}`, bytes: 20_000_000, mediaType: "text/plain; charset=utf-8" };
 * ```
 */
export const ArtifactRefSchema = z.object({
  digest: ArtifactDigestSchema,
  bytes: z.number().int().nonnegative(),
  mediaType: z.string().min(1).optional(),
});
export type ArtifactRef = z.infer<typeof ArtifactRefSchema>;

/** What `put` may record beside the bytes. The address never depends on it. */
export interface ArtifactMeta {
  readonly mediaType?: string;
}

/**
 * Whose artifacts a call is about. Every call of an `ArtifactStoreV2` names the tenant, as
 * every journal call does: there is no call that reads across tenants.
 */
export interface ArtifactScope {
  readonly tenantId: string;
}

/**
 * A content-addressed store for what is too large to journal inline (a 20 MB tool
 * output), partitioned by tenant: the journal keeps the `ArtifactRef`, the store keeps the
 * bytes, once per tenant.
 *
 * - Tenants are apart: what one tenant put, another's `get` does not find (ARTIFACT_MISSING)
 *   and its `has` says false, even for the same bytes. A store may not deduplicate across
 *   tenants in a way a caller can observe: `has` would tell one tenant what another holds.
 * - `put` is idempotent per tenant: the same bytes give the same ref and are not written
 *   again. It resolves once the bytes are durable, so a journal may reference them right
 *   after. Bytes over the store's size limit are refused with TOOL_OUTPUT_TOO_LARGE.
 * - `get` returns exactly the bytes put: ARTIFACT_MISSING when the store does not hold them
 *   for the tenant, ARTIFACT_CORRUPT when what it holds no longer hashes to the digest.
 * - `has` says whether the store holds the digest for the tenant (without verifying the bytes).
 * - A scope without a non-empty string `tenantId` is ARTIFACT_SCOPE_INVALID, never "all tenants".
 *
 * @example
 * ```ts
 * const acme = { tenantId: "acme" };
 * const ref = await store.put(acme, "a very long log…", { mediaType: "text/plain; charset=utf-8" });
 * const text = new TextDecoder().decode(await store.get(acme, ref)); // verified against ref.digest
 * await store.has({ tenantId: "globex" }, ref.digest); // false
 * ```
 */
export interface ArtifactStoreV2 {
  readonly specificationVersion: "v2";
  put(scope: ArtifactScope, content: string | Uint8Array, meta?: ArtifactMeta): Promise<ArtifactRef>;
  get(scope: ArtifactScope, ref: ArtifactRef | ArtifactDigest): Promise<Uint8Array>;
  has(scope: ArtifactScope, ref: ArtifactRef | ArtifactDigest): Promise<boolean>;
}

/**
 * Version 1 of the artifact store: not partitioned by tenant (any caller holding a digest
 * reads the bytes). Superseded by `ArtifactStoreV2`; the runtime accepts only V2.
 *
 * @deprecated Implement `ArtifactStoreV2`: every call names the tenant.
 *
 * A content-addressed store for what is too large to journal inline (a 20 MB tool
 * output): the journal keeps the `ArtifactRef`, the store keeps the bytes, once.
 *
 * - `put` is idempotent: the same bytes give the same ref and are not written again. It
 *   resolves once the bytes are durable, so a journal may reference them right after. Bytes
 *   over the store's size limit are refused with TOOL_OUTPUT_TOO_LARGE.
 * - `get` returns exactly the bytes put: ARTIFACT_MISSING when the store does not hold them,
 *   ARTIFACT_CORRUPT when what it holds no longer hashes to the digest.
 * - `has` says whether the store holds the digest (without verifying the bytes).
 *
 * @example
 * ```ts
 * const ref = await store.put("a very long log…", { mediaType: "text/plain; charset=utf-8" });
 * const text = new TextDecoder().decode(await store.get(ref)); // verified against ref.digest
 * await store.has(ref.digest); // true
 * ```
 */
export interface ArtifactStoreV1 {
  readonly specificationVersion: "v1";
  put(content: string | Uint8Array, meta?: ArtifactMeta): Promise<ArtifactRef>;
  get(ref: ArtifactRef | ArtifactDigest): Promise<Uint8Array>;
  has(ref: ArtifactRef | ArtifactDigest): Promise<boolean>;
}

/** The digest of a ref or digest; the hex part is `digest.slice(7)`. */
export function artifactDigestOf(ref: ArtifactRef | ArtifactDigest): ArtifactDigest {
  return typeof ref === "string" ? ref : ref.digest;
}
