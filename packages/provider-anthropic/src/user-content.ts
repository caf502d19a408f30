// User images and files on the Messages API: what it takes (vision and PDF-support guides)
// and the `image` / `document` blocks they become.
import type { JsonValue, MediaPart, UserPart } from "@yoke/protocol";

type Block = { [key: string]: JsonValue };

/** Image types the vision guide lists. */
export const ANTHROPIC_IMAGE_TYPES: readonly string[] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/** Document types: PDF (bytes or URL) and plain text (sent as a text source, so bytes only). */
export const ANTHROPIC_DOCUMENT_TYPES: readonly string[] = ["application/pdf", "text/plain"];

/** Why the Messages API cannot take `part`, or undefined when it can. */
export function anthropicMediaIssue(part: MediaPart): string | undefined {
  if (part.type === "image") {
    return ANTHROPIC_IMAGE_TYPES.includes(part.mediaType) ? undefined : `Anthropic takes ${ANTHROPIC_IMAGE_TYPES.join(", ")} images`;
  }
  if (!ANTHROPIC_DOCUMENT_TYPES.includes(part.mediaType)) return `Anthropic takes ${ANTHROPIC_DOCUMENT_TYPES.join(", ")} documents`;
  if (part.mediaType === "text/plain" && part.source.type === "url") return "Anthropic takes a text/plain document as text, not as a URL";
  return undefined;
}

/** The `source` of an image or document block; admission has refused artifact sources. */
function sourceOf(part: MediaPart): Block {
  const { source } = part;
  if (source.type === "url") return { type: "url", url: source.url };
  const data = source.type === "base64" ? source.data : "";
  if (part.mediaType === "text/plain") return { type: "text", media_type: "text/plain", data: utf8OfBase64(data) };
  return { type: "base64", media_type: part.mediaType, data };
}

function utf8OfBase64(data: string): string {
  return new TextDecoder().decode(Uint8Array.from(atob(data), (char) => char.charCodeAt(0)));
}

/** A user message's blocks: text (empty text is not sent), `image`, `document` (titled by its filename). */
export function userBlocks(parts: readonly UserPart[]): Block[] {
  return parts.flatMap((part): Block[] => {
    if (part.type === "text") return part.text === "" ? [] : [{ type: "text", text: part.text }];
    if (part.type === "image") return [{ type: "image", source: sourceOf(part) }];
    return [{ type: "document", source: sourceOf(part), ...(part.filename === undefined ? {} : { title: part.filename }) }];
  });
}
