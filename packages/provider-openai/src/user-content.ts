// User images and files on OpenAI's two endpoints: what each takes (vision and file-input
// guides) and how it is written on the wire.
import { dataUrl, type JsonValue, type MediaPart, type UserPart } from "@yoke/protocol";
import type { OpenAIApi } from "./capabilities.js";

/** Image types the vision guide lists (GIF: non-animated). */
export const OPENAI_IMAGE_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/webp", "image/gif"];

/**
 * File types the Responses API takes as `input_file` (PDF with text and page images; the
 * others as extracted text). Chat Completions takes PDF alone, and only as bytes.
 */
export const OPENAI_FILE_TYPES: readonly string[] = [
  "application/pdf",
  "text/plain",
  "text/markdown",
  "text/csv",
  "text/html",
  "application/json",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
];

/** Why `api` cannot take `part`, or undefined when it can. */
export function openAIMediaIssue(part: MediaPart, api: OpenAIApi): string | undefined {
  if (part.type === "image") {
    return OPENAI_IMAGE_TYPES.includes(part.mediaType) ? undefined : `OpenAI takes ${OPENAI_IMAGE_TYPES.join(", ")} images`;
  }
  if (api === "chat") {
    if (part.mediaType !== "application/pdf") return 'Chat Completions takes PDF files only (use api: "responses" for other files)';
    if (part.source.type === "url") return 'Chat Completions takes files as bytes, not URLs (use api: "responses" for file_url)';
    return undefined;
  }
  return OPENAI_FILE_TYPES.includes(part.mediaType) ? undefined : `the Responses API takes ${OPENAI_FILE_TYPES.join(", ")} files`;
}

const EXTENSIONS: Readonly<Record<string, string>> = { "application/pdf": "pdf", "text/plain": "txt", "text/markdown": "md", "text/csv": "csv" };

/** The name OpenAI is given for a file: its own, else `file.<extension>` (the API wants one with inline bytes). */
function filenameOf(part: Extract<MediaPart, { type: "file" }>): string {
  return part.filename ?? `file.${EXTENSIONS[part.mediaType] ?? "bin"}`;
}

/** `data:` URL or the URL itself; admission has refused artifact sources. */
function urlOf(part: MediaPart): string {
  const { source } = part;
  return source.type === "url" ? source.url : source.type === "base64" ? dataUrl(part.mediaType, source) : "";
}

/**
 * A user message's content for Chat Completions: its text joined by newlines when it is all
 * text (the form it always had), else content parts (`text`, `image_url`, `file`).
 */
export function chatUserContent(parts: readonly UserPart[]): JsonValue {
  if (parts.every((part) => part.type === "text")) return parts.map((part) => (part.type === "text" ? part.text : "")).join("\n");
  return parts.map((part): JsonValue => {
    if (part.type === "text") return { type: "text", text: part.text };
    if (part.type === "image") return { type: "image_url", image_url: { url: urlOf(part), ...(part.detail === undefined ? {} : { detail: part.detail }) } };
    return { type: "file", file: { filename: filenameOf(part), file_data: urlOf(part) } };
  });
}

/** A user message's content for the Responses API: `input_text`, `input_image`, `input_file`. */
export function responsesUserContent(parts: readonly UserPart[]): JsonValue {
  return parts.map((part): JsonValue => {
    if (part.type === "text") return { type: "input_text", text: part.text };
    if (part.type === "image") return { type: "input_image", image_url: urlOf(part), detail: part.detail ?? "auto" };
    return part.source.type === "url"
      ? { type: "input_file", file_url: part.source.url }
      : { type: "input_file", filename: filenameOf(part), file_data: urlOf(part) };
  });
}
