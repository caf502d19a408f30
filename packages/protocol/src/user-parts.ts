import { z } from "zod/v4";

import { ArtifactRefSchema } from "./artifacts.js";

/**
 * Whether `text` is standard base64, padded to a multiple of 4 characters, without a `data:`
 * prefix. One character class and a length test: a grouped pattern overflows the regex
 * stack on the megabytes an image is.
 */
export function isBase64(text: string): boolean {
  return text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text);
}

/**
 * Where the bytes of an image or file are.
 *
 * - `artifact`: stored once in the run's `ArtifactStoreV2` (tenant-scoped) and named by its
 *   digest. This is what events and compiled requests carry: the request hash covers the
 *   digest, which pins the bytes, and no event holds megabytes. A runtime resolves it to
 *   `base64` just before the provider call; an adapter refuses one that reaches it.
 * - `base64`: the bytes inline (standard base64, no `data:` prefix). For a request built by
 *   hand and handed to an adapter directly.
 * - `url`: an `https:` (or `http:`) address the provider fetches itself.
 */
export const MediaSourceSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("artifact"), artifact: ArtifactRefSchema }),
  z.object({ type: z.literal("base64"), data: z.string().refine(isBase64, "standard base64, padded, without a data: prefix") }),
  z.object({
    type: z.literal("url"),
    url: z
      .string()
      .url()
      .regex(/^https?:\/\//i),
  }),
]);
export type MediaSource = z.infer<typeof MediaSourceSchema>;

/** A media type such as `image/png` or `application/pdf` (lower case, no parameters). */
const MediaTypeSchema = z.string().regex(/^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/);

/**
 * An image a user gave the model. `width` and `height` (pixels) are what the context
 * compiler counts it by, when known; `detail` is OpenAI's resolution hint (others ignore it).
 *
 * @example
 * ```ts
 * const photo: ImagePart = { type: "image", mediaType: "image/png", source: { type: "url", url: "https://example.com/cat.png" } };
 * ```
 */
export const ImagePartSchema = z.object({
  type: z.literal("image"),
  mediaType: MediaTypeSchema,
  source: MediaSourceSchema,
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
  detail: z.enum(["auto", "low", "high"]).optional(),
});
export type ImagePart = z.infer<typeof ImagePartSchema>;

/**
 * A file a user gave the model (a PDF, a text file). `filename` is shown to providers that
 * take one; `pages` (a PDF's page count, when known) is what the context compiler counts it by.
 *
 * @example
 * ```ts
 * const report: FilePart = { type: "file", mediaType: "application/pdf", filename: "q3.pdf", source: { type: "base64", data: pdfBase64 } };
 * ```
 */
export const FilePartSchema = z.object({
  type: z.literal("file"),
  mediaType: MediaTypeSchema,
  source: MediaSourceSchema,
  filename: z.string().min(1).optional(),
  pages: z.number().int().positive().optional(),
});
export type FilePart = z.infer<typeof FilePartSchema>;

/** An image or a file: a user part that is not text. */
export type MediaPart = ImagePart | FilePart;

/** The modality a media part needs the model to take (`capabilities.inputModalities`). */
export function modalityOf(part: MediaPart): "image" | "file" {
  return part.type;
}

/** A `data:` URL for inline bytes, as OpenAI takes them. */
export function dataUrl(mediaType: string, source: Extract<MediaSource, { type: "base64" }>): string {
  return `data:${mediaType};base64,${source.data}`;
}
