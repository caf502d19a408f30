// What every artifact store shares: the bytes of a put, their address, the size limit and
// the checks of a digest handed in by a caller.
import { createHash } from "node:crypto";
import {
  ArtifactDigestSchema,
  YokeError,
  artifactDigestOf,
  type ArtifactDigest,
  type ArtifactMeta,
  type ArtifactRef,
  type ArtifactScope,
} from "@yoke/protocol";

/**
 * The tenant a call is scoped to: ARTIFACT_SCOPE_INVALID unless the scope names a non-empty
 * string tenant id. Never a default: an unscoped call must not read or write for everyone.
 */
export function tenantOf(scope: ArtifactScope): string {
  const tenantId = typeof scope === "object" && scope !== null ? (scope as { tenantId?: unknown }).tenantId : undefined;
  if (typeof tenantId !== "string" || tenantId === "") {
    throw new YokeError("ARTIFACT_SCOPE_INVALID", "an artifact store call must name its tenant: scope.tenantId must be a non-empty string", {
      details: { tenantId: typeof tenantId === "string" ? tenantId : String(tenantId) },
    });
  }
  return tenantId;
}

/** The content of a put as bytes: a string is stored as UTF-8. */
export function bytesOf(content: string | Uint8Array): Uint8Array {
  if (typeof content === "string") return Buffer.from(content, "utf8");
  if (content instanceof Uint8Array) return content;
  throw new YokeError("CONFIG_INVALID", "an artifact's content must be a string or a Uint8Array", { details: { option: "content" } });
}

export function sha256HexOf(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The ref of `bytes`, refused with TOOL_OUTPUT_TOO_LARGE past `maxBytes`. */
export function refOf(bytes: Uint8Array, meta: ArtifactMeta | undefined, maxBytes: number | undefined): ArtifactRef {
  if (maxBytes !== undefined && bytes.byteLength > maxBytes) {
    throw new YokeError("TOOL_OUTPUT_TOO_LARGE", `an artifact of ${bytes.byteLength} bytes is larger than this store's limit of ${maxBytes} bytes`, {
      details: { bytes: bytes.byteLength, maxArtifactBytes: maxBytes },
    });
  }
  const ref: ArtifactRef = { digest: `sha256:${sha256HexOf(bytes)}`, bytes: bytes.byteLength };
  if (meta?.mediaType !== undefined) ref.mediaType = meta.mediaType;
  return ref;
}

/**
 * The hex part of a digest handed to `get` or `has`, or undefined when it is not a
 * well-formed `sha256:<64 hex>` (which no store can hold: never a path).
 */
export function hexOf(ref: ArtifactRef | ArtifactDigest): string | undefined {
  const digest = typeof ref === "string" || (typeof ref === "object" && ref !== null) ? artifactDigestOf(ref) : undefined;
  return ArtifactDigestSchema.safeParse(digest).success ? digest!.slice("sha256:".length) : undefined;
}

export function missing(digest: unknown, where?: string): YokeError {
  const named = typeof digest === "object" && digest !== null && "digest" in digest ? (digest as { digest: unknown }).digest : digest;
  const shown = typeof named === "string" ? named : JSON.stringify(named);
  return new YokeError("ARTIFACT_MISSING", `artifact ${shown} is not in the artifact store${where === undefined ? "" : ` (${where})`}`, {
    details: { digest: shown },
  });
}

/** Checks that `bytes` hash to `hex`: ARTIFACT_CORRUPT otherwise. */
export function verified(bytes: Uint8Array, hex: string, where?: string): Uint8Array {
  const actual = sha256HexOf(bytes);
  if (actual !== hex) {
    throw new YokeError(
      "ARTIFACT_CORRUPT",
      `artifact sha256:${hex} holds ${bytes.byteLength} bytes that hash to sha256:${actual}${where === undefined ? "" : ` (${where})`}`,
      {
        details: { digest: `sha256:${hex}`, actual: `sha256:${actual}`, ...(where === undefined ? {} : { path: where }) },
      },
    );
  }
  return bytes;
}

export function checkMaxBytes(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new YokeError("CONFIG_INVALID", "maxArtifactBytes must be a positive integer", { details: { option: "maxArtifactBytes" } });
  }
  return value;
}
