// Images and files in user input, over the real SDK and recorded wire traffic: the bodies
// follow OpenAI's vision and file-input guides (Responses `input_image` / `input_file`, Chat
// Completions `image_url` / `file`), and what a model or endpoint cannot take is refused
// before any request is sent.
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

const withParts = userRequest;
const { question, pngBytes, pdfBytes } = mediaParts;
const pngUrl: UserPart = { type: "image", mediaType: "image/png", source: { type: "url", url: "https://example.com/cat.png" }, detail: "low" };
const pdfUrl: UserPart = { type: "file", mediaType: "application/pdf", source: { type: "url", url: "https://example.com/report.pdf" } };

describe("user images and files on the Responses API", () => {
  it("sends images as input_image (data URL or URL) and files as input_file (file_data or file_url)", async () => {
    const { server, provider } = await open([fixture("text.sse")], { model: "gpt-4.1-mini" });
    await provider.generate(withParts(question, pngBytes, pngUrl, pdfBytes, pdfUrl));
    expect(server.requests).toHaveLength(1);
    expect((server.requests[0]!.body as { input: unknown[] }).input).toEqual([
      {
        role: "user",
        content: [
          { type: "input_text", text: "What is in these?" },
          { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" },
          { type: "input_image", image_url: "https://example.com/cat.png", detail: "low" },
          { type: "input_file", filename: "report.pdf", file_data: `data:application/pdf;base64,${PDF}` },
          { type: "input_file", file_url: "https://example.com/report.pdf" },
        ],
      },
    ]);
  });

  it("keeps a text-only user message as it always was", async () => {
    const { server, provider } = await open([fixture("text.sse")], { model: "gpt-4.1-mini" });
    await provider.generate(withParts(question));
    expect((server.requests[0]!.body as { input: unknown[] }).input).toEqual([{ role: "user", content: [{ type: "input_text", text: "What is in these?" }] }]);
  });
});

describe("user images and files on Chat Completions", () => {
  it("sends content parts: image_url with its detail, and a PDF as a file with a data URL", async () => {
    const { server, provider } = await open([fixture("chat-text.sse")], { model: "gpt-4.1-mini", api: "chat" });
    await provider.generate(withParts(question, pngBytes, pngUrl, { ...pdfBytes, filename: undefined } as UserPart));
    expect((server.requests[0]!.body as { messages: unknown[] }).messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is in these?" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: "image_url", image_url: { url: "https://example.com/cat.png", detail: "low" } },
          { type: "file", file: { filename: "file.pdf", file_data: `data:application/pdf;base64,${PDF}` } },
        ],
      },
    ]);
  });
});

describe("refused before any request", () => {
  const cases: { name: string; request: ModelRequest; options: Parameters<typeof replay>[1]; reason: RegExp; details: Record<string, unknown> }[] = [
    {
      name: "an image to a model whose inputModalities are text only",
      request: withParts(question, pngBytes),
      options: { model: "my-fine-tune" },
      reason: /message 0 part 1 \(image image\/png\): the model does not take image input \(its inputModalities are text\)/,
      details: { message: 0, part: 1, modality: "image", mediaType: "image/png", source: "base64" },
    },
    {
      name: "a file to a model declared without file input",
      request: withParts(pdfBytes),
      options: { model: "gpt-4.1-mini", capabilities: { inputModalities: ["text", "image"] } },
      reason: /message 0 part 0 \(file application\/pdf\): the model does not take file input/,
      details: { modality: "file", type: "file" },
    },
    {
      name: "an image type OpenAI does not take",
      request: withParts({ type: "image", mediaType: "image/tiff", source: { type: "base64", data: PNG } }),
      options: { model: "gpt-4.1-mini" },
      reason: /\(image image\/tiff\): OpenAI takes image\/png, image\/jpeg, image\/webp, image\/gif images/,
      details: { mediaType: "image/tiff" },
    },
    {
      name: "a file URL on Chat Completions",
      request: withParts(pdfUrl),
      options: { model: "gpt-4.1-mini", api: "chat" },
      reason: /Chat Completions takes files as bytes, not URLs/,
      details: { source: "url" },
    },
    {
      name: "a file other than a PDF on Chat Completions",
      request: withParts({ type: "file", mediaType: "text/csv", source: { type: "base64", data: btoa("a,b\n1,2\n") } }),
      options: { model: "gpt-4.1-mini", api: "chat" },
      reason: /Chat Completions takes PDF files only/,
      details: { mediaType: "text/csv" },
    },
    {
      name: "a media type the Responses API does not take",
      request: withParts({ type: "file", mediaType: "application/zip", source: { type: "base64", data: PNG } }),
      options: { model: "gpt-4.1-mini" },
      reason: /the Responses API takes application\/pdf/,
      details: { mediaType: "application/zip" },
    },
    {
      name: "an artifact reference that was not resolved to bytes",
      request: withParts({ type: "image", mediaType: "image/png", source: { type: "artifact", artifact: { digest: `sha256:${"a".repeat(64)}`, bytes: 70 } } }),
      options: { model: "gpt-4.1-mini" },
      reason: /its source is artifact sha256:a{64}, not bytes: resolve artifact sources before the call/,
      details: { source: "artifact" },
    },
  ];
  for (const { name, request, options, reason, details } of cases) {
    it(`refuses ${name}`, async () => {
      const { server, provider } = await open([fixture("text.sse")], options);
      const error = await rejection(provider.generate(request));
      expect(YokeError.isInstance(error) && error.code).toBe("PROVIDER_ADMISSION_REJECTED");
      expect((error as YokeError).message).toMatch(reason);
      expect((error as YokeError).details).toMatchObject({ provider: "openai", ...details });
      expect(() => provider.admit(request)).toThrow(reason);
      expect(server.requests).toHaveLength(0);
    });
  }
});
