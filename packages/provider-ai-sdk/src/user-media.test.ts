// Images and files in user input through the bridge: the specification's file parts, over a
// real provider package (@ai-sdk/openai-compatible) and recorded wire traffic, and over the
// AI SDK's mock models for what depends on the model's declarations (supportedUrls, V3).
import { MockLanguageModelV3 } from "ai/test";
import { YokeError, type ModelRequest, type UserPart } from "@yoke/protocol";
import { TINY_PDF_BASE64, TINY_PNG_BASE64, mediaParts, userRequest } from "@yoke/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { createAiSdkProvider } from "./index.js";
import { MockLanguageModelV4, compatReplay, fixture, rejection, streamOf, textParts, type CompatReplay } from "./__fixtures__/test-support.js";

let open: CompatReplay | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});

const PNG = TINY_PNG_BASE64;
const PDF = TINY_PDF_BASE64;

const withParts = userRequest;
const { question, pngBytes, pdfBytes } = mediaParts;
const pngUrl: UserPart = { type: "image", mediaType: "image/png", source: { type: "url", url: "https://images.example.com/cat.png" } };
const visual = { inputModalities: ["text", "image", "file"] as const };

describe("user images and files through the bridge", () => {
  it("reaches an OpenAI-compatible server as image_url and file parts", async () => {
    open = await compatReplay([fixture("text.sse")], { capabilities: { inputModalities: [...visual.inputModalities] } });
    await open.provider.generate(withParts(question, pngBytes, pdfBytes));
    expect((open.server.requests[0]!.body as { messages: unknown[] }).messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is in these?" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: "file", file: { filename: "report.pdf", file_data: `data:application/pdf;base64,${PDF}` } },
        ],
      },
    ]);
  });

  it("hands the model file parts: base64 data, or a URL its supportedUrls say it fetches", async () => {
    const model = new MockLanguageModelV4({
      provider: "mock.chat",
      modelId: "mock-model",
      supportedUrls: () => ({ "image/*": [/^https:\/\/images\.example\.com\//] }),
      doStream: streamOf(textParts("ok")),
    });
    const provider = createAiSdkProvider({ model, capabilities: { inputModalities: [...visual.inputModalities] } });
    await provider.generate(withParts(question, pngBytes, pngUrl, pdfBytes));
    expect(model.doStreamCalls[0]!.prompt).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is in these?" },
          { type: "file", mediaType: "image/png", data: { type: "data", data: PNG } },
          { type: "file", mediaType: "image/png", data: { type: "url", url: new URL("https://images.example.com/cat.png") } },
          { type: "file", mediaType: "application/pdf", filename: "report.pdf", data: { type: "data", data: PDF } },
        ],
      },
    ]);
  });

  it("gives a LanguageModelV3 its own file-part form (the bytes or the URL as data)", async () => {
    const model = new MockLanguageModelV3({
      provider: "older.chat",
      modelId: "older-model",
      supportedUrls: () => ({ "image/*": [/^https:/] }),
      doStream: streamOf(textParts("ok")) as never,
    });
    const provider = createAiSdkProvider({ model });
    expect(provider.capabilities.inputModalities).toEqual(["text", "image"]);
    await provider.generate(withParts(pngBytes, pngUrl));
    expect(model.doStreamCalls[0]!.prompt[0]!.content).toEqual([
      { type: "file", mediaType: "image/png", data: PNG },
      { type: "file", mediaType: "image/png", data: new URL("https://images.example.com/cat.png") },
    ]);
  });
});

describe("refused before the model is called", () => {
  const cases: { name: string; request: ModelRequest; supportedUrls: Record<string, RegExp[]>; reason: RegExp }[] = [
    {
      name: "an image to a model that declares text only",
      request: withParts(question, pngBytes),
      supportedUrls: {},
      reason: /message 0 part 1 \(image image\/png\): the model does not take image input \(its inputModalities are text\)/,
    },
    {
      name: "a file to a model that declares images only",
      request: withParts(pdfBytes),
      supportedUrls: { "image/*": [/^https:/] },
      reason: /message 0 part 0 \(file application\/pdf\): the model does not take file input/,
    },
    {
      name: "a URL no supportedUrls pattern matches (the bridge never downloads)",
      request: withParts({ ...pngUrl, source: { type: "url", url: "https://elsewhere.example.org/cat.png" } } as UserPart),
      supportedUrls: { "image/*": [/^https:\/\/images\.example\.com\//], "application/pdf": [/./] },
      reason:
        /the model does not take image\/png by URL \(no supportedUrls pattern matches https:\/\/elsewhere\.example\.org\/cat\.png\): give the bytes instead/,
    },
    {
      name: "an artifact reference that was not resolved",
      request: withParts({ type: "image", mediaType: "image/png", source: { type: "artifact", artifact: { digest: `sha256:${"e".repeat(64)}`, bytes: 70 } } }),
      supportedUrls: { "image/*": [/./] },
      reason: /its source is artifact sha256:e{64}, not bytes/,
    },
  ];
  for (const { name, request, supportedUrls, reason } of cases) {
    it(`refuses ${name}`, async () => {
      const model = new MockLanguageModelV4({
        provider: "mock.chat",
        modelId: "mock-model",
        supportedUrls: () => supportedUrls,
        doStream: streamOf(textParts("never")),
      });
      const provider = createAiSdkProvider({ model });
      const error = await rejection(provider.generate(request));
      expect(YokeError.isInstance(error) && error.code).toBe("PROVIDER_ADMISSION_REJECTED");
      expect((error as YokeError).message).toMatch(reason);
      expect((error as YokeError).details).toMatchObject({ provider: "mock.chat", message: 0 });
      expect(model.doStreamCalls).toHaveLength(0);
    });
  }
});
