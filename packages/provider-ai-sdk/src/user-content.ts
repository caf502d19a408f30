// User images and files as the AI SDK specification's file parts (an image is a file part
// with an `image/*` media type), and which URLs a model takes as they are.
import type { LanguageModelV4FilePart, LanguageModelV4TextPart } from "@ai-sdk/provider";
import type { MediaPart, UserPart } from "@yoke/protocol";

/** A model's `supportedUrls`: media type (or `image/*`, `*\/*`) to the URL patterns it fetches itself. */
export type SupportedUrls = Readonly<Record<string, readonly RegExp[]>>;

function urlPatternsFor(mediaType: string, supportedUrls: SupportedUrls): RegExp[] {
  const top = mediaType.split("/")[0];
  const keys = [mediaType, `${top}/*`, top, "*/*", "*"];
  return Object.entries(supportedUrls).flatMap(([key, patterns]) => (keys.includes(key.toLowerCase()) ? [...patterns] : []));
}

/**
 * Why the model cannot take `part`, or undefined when it can. A URL is sent as it is only
 * where the model's `supportedUrls` says it fetches it (the specification's contract: the
 * AI SDK downloads the others first, and the bridge never fetches anything itself); bytes of
 * a declared modality are the provider package's to convert.
 */
export function aiSdkMediaIssue(part: MediaPart, supportedUrls: SupportedUrls | undefined): string | undefined {
  if (part.source.type !== "url") return undefined;
  const url = part.source.url;
  if (urlPatternsFor(part.mediaType, supportedUrls ?? {}).some((pattern) => new RegExp(pattern.source, pattern.flags).test(url))) return undefined;
  return `the model does not take ${part.mediaType} by URL (no supportedUrls pattern matches ${url}): give the bytes instead`;
}

/** A user part in the specification's prompt: text, or a file part with base64 data or a URL. */
export function userPromptPart(part: UserPart): LanguageModelV4TextPart | LanguageModelV4FilePart {
  if (part.type === "text") return { type: "text", text: part.text };
  const { source } = part;
  const data: LanguageModelV4FilePart["data"] =
    source.type === "url" ? { type: "url", url: new URL(source.url) } : { type: "data", data: source.type === "base64" ? source.data : "" };
  return { type: "file", mediaType: part.mediaType, data, ...(part.type === "file" && part.filename !== undefined ? { filename: part.filename } : {}) };
}
