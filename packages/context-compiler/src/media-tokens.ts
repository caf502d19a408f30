// What an image or a file in user input costs in the context window. Providers do not
// tokenize media as text; each publishes its own rule, and where the rule needs what the
// compiler does not know (pixels, pages) a declared conservative estimate stands in.
import type { FilePart, ImagePart, MediaPart, Message } from "@yoke/protocol";

/** How media is counted for one model family. */
export type MediaTokenRule = "openai" | "anthropic" | "conservative";

/**
 * An image of unknown size. Above the largest figure any published rule gives an image the
 * provider has not refused: OpenAI's tile rule at most 1,445 (8 tiles of 170 plus 85), its
 * patch rule 1,536 patches times the model's multiplier (up to 1.62 for the vision models it
 * lists), Anthropic's about 1,600 (images are scaled to about 1.15 megapixels at 750 pixels a
 * token).
 */
export const UNKNOWN_IMAGE_TOKENS = 2_500;

/**
 * One page of a PDF. Anthropic's document guide counts 1,500 to 3,000 tokens a page (the
 * page's text and the page as an image); OpenAI sends the same two. The upper figure.
 */
export const PDF_PAGE_TOKENS = 3_000;

/** A PDF whose page count is unknown (a URL) is counted as this many pages. */
export const UNKNOWN_PDF_PAGES = 10;

/** Characters per token for a text file, as the compiler's declared text estimate. */
const TEXT_FILE_BYTES_PER_TOKEN = 3.2;

/**
 * OpenAI's high-detail rule (vision guide, "calculating costs"): fit in 2048 x 2048, scale
 * the shorter side down to 768, then 170 tokens per 512-pixel tile plus 85; `low` detail is 85.
 */
function openAIImageTokens(width: number, height: number, detail: ImagePart["detail"]): number {
  if (detail === "low") return 85;
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shorter = Math.min(1, 768 / Math.min(w, h));
  w *= shorter;
  h *= shorter;
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}

/**
 * Anthropic's rule (vision guide): `width * height / 750`, after a long edge over 1568 pixels
 * is scaled down to 1568.
 */
function anthropicImageTokens(width: number, height: number): number {
  const scale = Math.min(1, 1568 / Math.max(width, height));
  return Math.ceil((width * scale * (height * scale)) / 750);
}

function imageTokens(part: ImagePart, rule: MediaTokenRule): number {
  const { width, height } = part;
  if (width === undefined || height === undefined) return rule === "openai" && part.detail === "low" ? 85 : UNKNOWN_IMAGE_TOKENS;
  switch (rule) {
    case "openai":
      return openAIImageTokens(width, height, part.detail);
    case "anthropic":
      return anthropicImageTokens(width, height);
    case "conservative":
      return Math.max(openAIImageTokens(width, height, "high"), anthropicImageTokens(width, height));
  }
}

/** Bytes of a file when its source says (an artifact ref, or inline base64); else undefined. */
function fileBytes(part: FilePart): number | undefined {
  const { source } = part;
  if (source.type === "artifact") return source.artifact.bytes;
  if (source.type === "base64") return Math.floor((source.data.length * 3) / 4);
  return undefined;
}

function fileTokens(part: FilePart): number {
  if (part.mediaType === "application/pdf") return (part.pages ?? UNKNOWN_PDF_PAGES) * PDF_PAGE_TOKENS;
  const bytes = fileBytes(part);
  // A text file is read as text; one of unknown size is counted as a page of a PDF.
  return bytes === undefined ? PDF_PAGE_TOKENS : Math.ceil(bytes / TEXT_FILE_BYTES_PER_TOKEN);
}

/**
 * The tokens one media part is counted at under `rule`. An image of known size follows the
 * provider's published rule (`conservative`: the larger of OpenAI's and Anthropic's); an
 * image of unknown size is `UNKNOWN_IMAGE_TOKENS`; a PDF `PDF_PAGE_TOKENS` a page
 * (`UNKNOWN_PDF_PAGES` pages when its count is unknown); another file its bytes over 3.2.
 *
 * @example
 * ```ts
 * mediaPartTokens({ type: "image", mediaType: "image/png", source, width: 1024, height: 1024 }, "openai"); // 765
 * mediaPartTokens({ type: "image", mediaType: "image/png", source, width: 1000, height: 1000 }, "anthropic"); // 1334
 * ```
 */
export function mediaPartTokens(part: MediaPart, rule: MediaTokenRule): number {
  return part.type === "image" ? imageTokens(part, rule) : fileTokens(part);
}

/** The tokens of a message's media parts (0 for a message without any). */
export function mediaTokensOf(message: Message, rule: MediaTokenRule): number {
  if (message.role !== "user") return 0;
  let total = 0;
  for (const part of message.content) if (part.type !== "text") total += mediaPartTokens(part, rule);
  return total;
}

/** The media rule for a model id: OpenAI's for OpenAI models, Anthropic's for Claude, else conservative. */
export function mediaTokenRuleForModel(model: string): MediaTokenRule {
  const name = model.toLowerCase().replace(/^(openai|anthropic)\//, "");
  if (/^(gpt-|chatgpt-|o[1-9](-|$))/.test(name)) return "openai";
  if (name.startsWith("claude")) return "anthropic";
  return "conservative";
}
