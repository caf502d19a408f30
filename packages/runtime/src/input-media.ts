// A run's input images and files, before anything is journaled: admitted against the model's
// input modalities (a run never starts with what its model cannot read), then their bytes put
// once in the tenant's artifact store, so events and the hashed request hold references only.
import { YokeError, type RunScope, type UserPart } from "@yoke/protocol";
import type { HarnessDeps } from "./run-context.js";
import { hasMedia, type NormalizedInput } from "./user-input.js";
import { admitUserMedia, storeUserMedia } from "./user-media.js";

/** An input whose images and files are journal-ready: artifact references and URLs. */
export interface StoredInput {
  readonly task: string;
  readonly messages: readonly (readonly UserPart[])[];
}

/**
 * `input` with its images and files admitted and stored. PROVIDER_ADMISSION_REJECTED for a
 * modality the model does not declare; CONFIG_INVALID when bytes (or an artifact reference)
 * come with no `artifacts` store (a URL needs none); USER_MEDIA_INVALID for bytes that are not what the
 * part claims. Text-only input is returned as it is.
 */
export async function storedInput(deps: HarnessDeps, scope: RunScope, input: NormalizedInput): Promise<StoredInput> {
  if (!hasMedia(input)) return input as StoredInput;
  for (const parts of input.messages) admitUserMedia(parts, deps.provider);
  const artifacts = deps.artifacts;
  if (artifacts === undefined) {
    const inline = input.messages.flat().find((part) => (part.type === "image" || part.type === "file" ? part.source.type !== "url" : false));
    if (inline !== undefined && inline.type !== "text") {
      throw new YokeError(
        "CONFIG_INVALID",
        `start: the input holds an image or file by ${inline.source.type}, and the harness has no \`artifacts\` store to keep it in (events reference bytes, never hold them): pass \`artifacts\` (e.g. createFileArtifactStore), or give the part a URL`,
        { details: { option: "artifacts" } },
      );
    }
    return input as StoredInput;
  }
  const store = { artifacts, scope: { tenantId: scope.tenantId } };
  const messages = await Promise.all(input.messages.map((parts) => storeUserMedia(parts, store)));
  return { task: input.task, messages };
}
