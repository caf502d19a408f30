// Images and files in user input, stored once and referenced: the journal and the compiled
// request carry an artifact digest (the request hash covers it, and it pins the bytes), the
// artifact store carries the bytes, per tenant. Just before a provider call the references
// become bytes again, since an adapter never reads a store.
import { createHash } from "node:crypto";
import {
  YokeError,
  artifactDigestOf,
  isBase64,
  type ArtifactDigest,
  type ArtifactScope,
  type ArtifactStoreV2,
  type FilePart,
  type ImagePart,
  type MediaSource,
  type ModelRequest,
  type ProviderAdapterV1,
  type TextPart,
  type UserPart,
} from "@yoke/protocol";
import { describeMedia } from "./media-sniff.js";

/** Where the bytes of an image or file an application hands in are: those of a stored part, or raw bytes. */
export type UserMediaSource = MediaSource | { readonly type: "bytes"; readonly data: Uint8Array };

/** A user part as an application hands it in: text, or an image or file whose bytes may be raw. */
export type UserPartInput =
  | TextPart
  | (Omit<ImagePart, "source"> & { readonly source: UserMediaSource })
  | (Omit<FilePart, "source"> & { readonly source: UserMediaSource });

/** The run's artifact store and the tenant whose artifacts these are. */
export interface UserMediaStore {
  readonly artifacts: ArtifactStoreV2;
  readonly scope: ArtifactScope;
}

/**
 * User parts as events reference them: the bytes of each image and file (raw or base64) put
 * once in the run's artifact store for the tenant (the same bytes twice are one artifact) and
 * replaced by an `artifact` source; text and URL parts as they are. Known formats are checked
 * against the media type the part claims (PNG, JPEG, GIF, WebP, PDF), and an image's pixel size
 * and a PDF's page count are filled in when the part does not give them, so the context
 * compiler counts them by the provider's rule. An `artifact` source the tenant's store does not
 * hold is ARTIFACT_MISSING (a tenant never references another's bytes); bytes that are not
 * base64 or not the claimed type are USER_MEDIA_INVALID, naming the part.
 *
 * @example
 * ```ts
 * const parts = await storeUserMedia(
 *   [{ type: "text", text: "What is in this photo?" }, { type: "image", mediaType: "image/png", source: { type: "bytes", data: png } }],
 *   { artifacts, scope: { tenantId: "acme" } },
 * );
 * // parts[1].source: { type: "artifact", artifact: { digest: "sha256:…", bytes: 5120, mediaType: "image/png" } }
 * ```
 */
export async function storeUserMedia(parts: readonly UserPartInput[], store: UserMediaStore): Promise<UserPart[]> {
  const stored = new Map<string, Promise<MediaSource>>();
  return Promise.all(
    parts.map(async (part, index): Promise<UserPart> => {
      if (part.type === "text") return part;
      const { source } = part;
      if (source.type === "url") return part as UserPart;
      if (source.type === "artifact") {
        if (!(await store.artifacts.has(store.scope, source.artifact.digest))) {
          throw new YokeError("ARTIFACT_MISSING", `user part ${index} references artifact ${source.artifact.digest}, which this tenant's store does not hold`, {
            details: { digest: source.artifact.digest },
          });
        }
        return part as UserPart;
      }
      const bytes = source.type === "bytes" ? source.data : decodeBase64(source.data, index, part.mediaType);
      const facts = describeMedia(bytes, part.mediaType);
      if (facts.mismatch !== undefined) {
        throw new YokeError("USER_MEDIA_INVALID", `user part ${index} claims ${part.mediaType} but ${facts.mismatch}`, {
          details: { part: index, mediaType: part.mediaType, reason: facts.mismatch },
        });
      }
      const key = `${part.mediaType}\n${createHash("sha256").update(bytes).digest("hex")}`;
      let put = stored.get(key);
      if (put === undefined) {
        put = store.artifacts.put(store.scope, bytes, { mediaType: part.mediaType }).then((artifact) => ({ type: "artifact", artifact }) as const);
        stored.set(key, put);
      }
      const artifactSource = await put;
      if (part.type === "image") {
        const image: ImagePart = { ...part, source: artifactSource };
        if (part.width === undefined && part.height === undefined && facts.width !== undefined && facts.height !== undefined) {
          image.width = facts.width;
          image.height = facts.height;
        }
        return image;
      }
      const file: FilePart = { ...part, source: artifactSource };
      if (part.pages === undefined && facts.pages !== undefined) file.pages = facts.pages;
      return file;
    }),
  );
}

/**
 * The inverse, for the provider call: `request` with every `artifact` source of its user
 * messages replaced by the stored bytes (base64), read from the tenant's store (verified
 * against the digest: ARTIFACT_MISSING, ARTIFACT_CORRUPT). The same object when it has none.
 * `cache` (digest to base64) spares a read per turn for a run that sends the same image again.
 *
 * @example
 * ```ts
 * const compiled = compiler.compile(input);                           // hashed with references
 * const sent = await resolveUserMedia(compiled.request, { artifacts, scope }); // bytes for the adapter
 * await provider.generate(sent);
 * ```
 */
export async function resolveUserMedia(request: ModelRequest, store: UserMediaStore, cache?: Map<ArtifactDigest, string>): Promise<ModelRequest> {
  if (!request.messages.some((message) => message.role === "user" && message.content.some((part) => part.type !== "text" && part.source.type === "artifact"))) {
    return request;
  }
  const read = async (ref: Extract<MediaSource, { type: "artifact" }>["artifact"]): Promise<string> => {
    const digest = artifactDigestOf(ref);
    const known = cache?.get(digest);
    if (known !== undefined) return known;
    const data = Buffer.from(await store.artifacts.get(store.scope, ref)).toString("base64");
    cache?.set(digest, data);
    return data;
  };
  const messages = await Promise.all(
    request.messages.map(async (message) => {
      if (message.role !== "user" || !message.content.some((part) => part.type !== "text" && part.source.type === "artifact")) return message;
      const content = await Promise.all(
        message.content.map(async (part): Promise<UserPart> => {
          if (part.type === "text" || part.source.type !== "artifact") return part;
          return { ...part, source: { type: "base64", data: await read(part.source.artifact) } };
        }),
      );
      return { ...message, content };
    }),
  );
  return { ...request, messages };
}

/**
 * Refuses (PROVIDER_ADMISSION_REJECTED, naming the part and modality) user parts of a
 * modality the provider does not declare in `capabilities.inputModalities`: the check a
 * harness makes on its input before it journals anything, so a run never starts with what
 * its model cannot read. Media types and sources are the adapter's to check at the call.
 *
 * @example
 * ```ts
 * admitUserMedia(parts, provider); // before storeUserMedia and the first append
 * ```
 */
export function admitUserMedia(parts: readonly UserPartInput[], provider: Pick<ProviderAdapterV1, "provider" | "modelId" | "capabilities">): void {
  const modalities = provider.capabilities.inputModalities;
  for (const [index, part] of parts.entries()) {
    if (part.type === "text" || modalities.includes(part.type)) continue;
    const reason = `user part ${index} (${part.type} ${part.mediaType}): the model does not take ${part.type} input (its inputModalities are ${modalities.join(", ")})`;
    throw new YokeError("PROVIDER_ADMISSION_REJECTED", `${provider.modelId} cannot take this input: ${reason}`, {
      details: { provider: provider.provider, model: provider.modelId, reason, part: index, modality: part.type, mediaType: part.mediaType },
    });
  }
}

function decodeBase64(data: string, index: number, mediaType: string): Uint8Array {
  if (!isBase64(data)) {
    throw new YokeError("USER_MEDIA_INVALID", `user part ${index} is not valid base64 (standard alphabet, padded, no data: prefix)`, {
      details: { part: index, mediaType, reason: "not valid base64" },
    });
  }
  return Uint8Array.from(Buffer.from(data, "base64"));
}
