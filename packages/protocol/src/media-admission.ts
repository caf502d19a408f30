import type { ModelRequest } from "./model.js";
import type { ProviderCapabilities } from "./provider.js";
import { modalityOf, type MediaPart } from "./user-parts.js";

/** Why a provider cannot take one image or file of a request, and which one it is. */
export interface MediaIssue {
  /** A sentence naming the part, e.g. `message 1 part 2 (image image/tiff): …`. */
  readonly reason: string;
  readonly details: {
    /** Index of the message in `request.messages`. */
    readonly message: number;
    /** Index of the part in the message's content. */
    readonly part: number;
    readonly type: MediaPart["type"];
    readonly mediaType: string;
    readonly source: MediaPart["source"]["type"];
    readonly modality: "image" | "file";
  };
}

/**
 * The first image or file of a request's user messages that the target cannot take, or
 * undefined when it takes them all. In order: a part whose source is still an `artifact`
 * reference (a runtime resolves it to bytes before the call; an adapter never reads a
 * store), a part whose modality `inputModalities` does not list, then whatever `accepts`
 * says of it (the provider's own media types and source kinds; undefined when it takes it).
 * An adapter turns an issue into PROVIDER_ADMISSION_REJECTED before any network call.
 *
 * @example
 * ```ts
 * const issue = userMediaIssue(request, capabilities.inputModalities, (part) =>
 *   part.type === "image" && !["image/png", "image/jpeg"].includes(part.mediaType) ? "the API takes PNG and JPEG images" : undefined,
 * );
 * if (issue !== undefined) throw new YokeError("PROVIDER_ADMISSION_REJECTED", issue.reason, { details: issue.details });
 * ```
 */
export function userMediaIssue(
  request: Pick<ModelRequest, "messages">,
  inputModalities: ProviderCapabilities["inputModalities"],
  accepts: (part: MediaPart) => string | undefined,
): MediaIssue | undefined {
  for (const [messageIndex, message] of request.messages.entries()) {
    if (message.role !== "user") continue;
    for (const [partIndex, part] of message.content.entries()) {
      if (part.type === "text") continue;
      const modality = modalityOf(part);
      const details = { message: messageIndex, part: partIndex, type: part.type, mediaType: part.mediaType, source: part.source.type, modality };
      const named = `message ${messageIndex} part ${partIndex} (${part.type} ${part.mediaType})`;
      const issue =
        part.source.type === "artifact"
          ? `its source is artifact ${part.source.artifact.digest}, not bytes: resolve artifact sources before the call`
          : !inputModalities.includes(modality)
            ? `the model does not take ${modality} input (its inputModalities are ${inputModalities.join(", ")})`
            : accepts(part);
      if (issue !== undefined) return { reason: `${named}: ${issue}`, details };
    }
  }
  return undefined;
}
