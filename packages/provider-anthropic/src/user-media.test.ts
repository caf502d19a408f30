// Images and documents in user input, over the real SDK and recorded wire traffic: the
// blocks follow Anthropic's vision and PDF-support guides (`image` / `document` with a
// base64, url or text source), and what a model or the API cannot take is refused before any
// request is sent.
import { YokeError, type ModelRequest, type UserPart } from "@yoke/protocol";
import { TINY_PDF_BASE64, TINY_PNG_BASE64, mediaParts, userRequest } from "@yoke/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { fixture, rejection, replay, type Replay } from "./__fixtures__/test-support.js";

let current: Replay | undefined;
async function open(...args: Parameters<typeof replay>): Promise<Replay> {
  current = await replay(...args);
  return current;
}
afterEach(async () => {
  await current?.server.close();
  current = undefined;
});

const PNG = TINY_PNG_BASE64;
const PDF = TINY_PDF_BASE64;
const NOTES = "Ship on Friday. Café opens at 9.";

const withParts = userRequest;
const { question, pngBytes, pdfBytes } = mediaParts;
const pngUrl: UserPart = { type: "image", mediaType: "image/png", source: { type: "url", url: "https://example.com/cat.png" } };
const pdfUrl: UserPart = { type: "file", mediaType: "application/pdf", source: { type: "url", url: "https://example.com/report.pdf" } };
const notes: UserPart = { type: "file", mediaType: "text/plain", source: { type: "base64", data: Buffer.from(NOTES).toString("base64") } };

describe("user images and documents on the Messages API", () => {
  it("sends image blocks (base64 or url source) and document blocks (PDF as base64 or url, plain text as a text source)", async () => {
    const { server, provider } = await open([fixture("text.sse")]);
    await provider.generate(withParts(pngBytes, pngUrl, pdfBytes, pdfUrl, notes, question));
    expect(server.requests).toHaveLength(1);
    const [message] = (server.requests[0]!.body as { messages: { role: string; content: Record<string, unknown>[] }[] }).messages;
    expect(message!.role).toBe("user");
    // The cache breakpoint marks the prefix's last block; the blocks are compared without it.
    expect(message!.content.map(({ cache_control: _breakpoint, ...block }) => block)).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      { type: "image", source: { type: "url", url: "https://example.com/cat.png" } },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: PDF }, title: "report.pdf" },
      { type: "document", source: { type: "url", url: "https://example.com/report.pdf" } },
      { type: "document", source: { type: "text", media_type: "text/plain", data: NOTES } },
      { type: "text", text: "What is in these?" },
    ]);
  });
});

describe("refused before any request", () => {
  const cases: { name: string; request: ModelRequest; options: Parameters<typeof replay>[1]; reason: RegExp; details: Record<string, unknown> }[] = [
    {
      name: "an image to a model whose inputModalities are text only",
      request: withParts(question, pngBytes),
      options: { model: "claude-experimental-1" },
      reason: /message 0 part 1 \(image image\/png\): the model does not take image input \(its inputModalities are text\)/,
      details: { message: 0, part: 1, modality: "image", mediaType: "image/png", source: "base64" },
    },
    {
      name: "a PDF to a model without file input (claude-3-5-haiku: text and images)",
      request: withParts(pdfBytes),
      options: { model: "claude-3-5-haiku-latest" },
      reason: /message 0 part 0 \(file application\/pdf\): the model does not take file input \(its inputModalities are text, image\)/,
      details: { modality: "file", type: "file" },
    },
    {
      name: "an image type Anthropic does not take",
      request: withParts({ type: "image", mediaType: "image/bmp", source: { type: "base64", data: PNG } }),
      options: {},
      reason: /\(image image\/bmp\): Anthropic takes image\/jpeg, image\/png, image\/gif, image\/webp images/,
      details: { mediaType: "image/bmp" },
    },
    {
      name: "a document type Anthropic does not take",
      request: withParts({ type: "file", mediaType: "text/csv", source: { type: "base64", data: btoa("a,b\n") } }),
      options: {},
      reason: /Anthropic takes application\/pdf, text\/plain documents/,
      details: { mediaType: "text/csv" },
    },
    {
      name: "a plain-text document by URL",
      request: withParts({ type: "file", mediaType: "text/plain", source: { type: "url", url: "https://example.com/notes.txt" } }),
      options: {},
      reason: /takes a text\/plain document as text, not as a URL/,
      details: { source: "url" },
    },
    {
      name: "an artifact reference that was not resolved to bytes",
      request: withParts({
        type: "file",
        mediaType: "application/pdf",
        source: { type: "artifact", artifact: { digest: `sha256:${"b".repeat(64)}`, bytes: 9 } },
      }),
      options: {},
      reason: /its source is artifact sha256:b{64}, not bytes/,
      details: { source: "artifact" },
    },
  ];
  for (const { name, request, options, reason, details } of cases) {
    it(`refuses ${name}`, async () => {
      const { server, provider } = await open([fixture("text.sse")], options);
      const error = await rejection(provider.generate(request));
      expect(YokeError.isInstance(error) && error.code).toBe("PROVIDER_ADMISSION_REJECTED");
      expect((error as YokeError).message).toMatch(reason);
      expect((error as YokeError).details).toMatchObject({ provider: "anthropic", ...details });
      expect(server.requests).toHaveLength(0);
    });
  }
});
