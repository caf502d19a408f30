import type { ModelRequest, UserPart } from "@yoke/protocol";

/** A 1x1 PNG, base64: the smallest image every provider's decoder accepts. */
export const TINY_PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** A one-page PDF, base64 (catalog, pages, one page): enough for a provider's document checks. */
export const TINY_PDF_BASE64 = btoa(
  "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page>>endobj\n%%EOF\n",
);

/**
 * User parts for adapter tests of images and files: a question, the tiny PNG and the tiny PDF
 * inline (base64). URL parts differ per provider (detail, hosts), so each test writes its own.
 *
 * @example
 * ```ts
 * const { question, pngBytes } = mediaParts;
 * await provider.generate(userRequest(question, pngBytes));
 * ```
 */
export const mediaParts = {
  question: { type: "text", text: "What is in these?" },
  pngBytes: { type: "image", mediaType: "image/png", source: { type: "base64", data: TINY_PNG_BASE64 } },
  pdfBytes: { type: "file", mediaType: "application/pdf", filename: "report.pdf", source: { type: "base64", data: TINY_PDF_BASE64 } },
} as const satisfies Record<string, UserPart>;

/** A request of one user message made of `content`, and no tools. */
export function userRequest(...content: UserPart[]): ModelRequest {
  return { messages: [{ role: "user", content }], tools: [] };
}
