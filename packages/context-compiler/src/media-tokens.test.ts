// Images and files in user input count against the context window: by the provider's
// published rule where the compiler knows what it needs (pixels, pages), else by a declared
// conservative estimate; they go into the request as they are (a reference, never bytes the
// compiler reads), and a transcript they overflow is a typed error.
import type { ImagePart, Message, UserPart } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { CONFIG, inputAt } from "./__fixtures__/runs.js";
import {
  PDF_PAGE_TOKENS,
  UNKNOWN_IMAGE_TOKENS,
  UNKNOWN_PDF_PAGES,
  compile,
  estimatedTokenCounter,
  isContextOverflow,
  mediaPartTokens,
  mediaTokenRuleForModel,
  rebuildRequest,
  type CompileConfig,
  type SourceMessage,
} from "./index.js";

const artifact = { type: "artifact", artifact: { digest: `sha256:${"d".repeat(64)}`, bytes: 120_000, mediaType: "image/png" } } as const;
const image = (width?: number, height?: number, detail?: ImagePart["detail"]): ImagePart => ({
  type: "image",
  mediaType: "image/png",
  source: artifact,
  ...(width === undefined ? {} : { width }),
  ...(height === undefined ? {} : { height }),
  ...(detail === undefined ? {} : { detail }),
});

describe("mediaPartTokens", () => {
  it("follows OpenAI's high-detail tile rule: fit 2048, shorter side 768, 170 a 512-pixel tile plus 85; low detail 85", () => {
    expect(mediaPartTokens(image(1024, 1024), "openai")).toBe(765);
    expect(mediaPartTokens(image(2048, 4096), "openai")).toBe(1105);
    expect(mediaPartTokens(image(512, 512), "openai")).toBe(255);
    expect(mediaPartTokens(image(4000, 3000, "low"), "openai")).toBe(85);
    expect(mediaPartTokens(image(undefined, undefined, "low"), "openai")).toBe(85);
  });

  it("follows Anthropic's rule: width x height / 750 after a long edge over 1568 is scaled to 1568", () => {
    expect(mediaPartTokens(image(1000, 1000), "anthropic")).toBe(1334);
    expect(mediaPartTokens(image(200, 200), "anthropic")).toBe(54);
    expect(mediaPartTokens(image(3136, 1568), "anthropic")).toBe(Math.ceil((1568 * 784) / 750));
  });

  it("counts the larger of both under the conservative rule, and a declared estimate for an image of unknown size", () => {
    expect(mediaPartTokens(image(1000, 1000), "conservative")).toBe(1334);
    expect(mediaPartTokens(image(100, 100), "conservative")).toBe(255);
    for (const rule of ["openai", "anthropic", "conservative"] as const) expect(mediaPartTokens(image(), rule)).toBe(UNKNOWN_IMAGE_TOKENS);
  });

  it("counts a PDF by its pages (a declared count when unknown) and another file by its bytes", () => {
    const pdf: UserPart = { type: "file", mediaType: "application/pdf", source: { type: "url", url: "https://e.com/a.pdf" } };
    expect(mediaPartTokens({ ...pdf, pages: 4 }, "openai")).toBe(4 * PDF_PAGE_TOKENS);
    expect(mediaPartTokens(pdf, "anthropic")).toBe(UNKNOWN_PDF_PAGES * PDF_PAGE_TOKENS);
    const text = { type: "file", mediaType: "text/plain", source: { ...artifact, artifact: { ...artifact.artifact, bytes: 3_200 } } } as const;
    expect(mediaPartTokens(text, "conservative")).toBe(1_000);
    expect(mediaPartTokens({ ...text, source: { type: "base64", data: "AAAA" } }, "conservative")).toBe(1);
  });

  it("picks the rule by model id", () => {
    expect(mediaTokenRuleForModel("gpt-4.1-mini")).toBe("openai");
    expect(mediaTokenRuleForModel("o4-mini")).toBe("openai");
    expect(mediaTokenRuleForModel("claude-sonnet-4-5")).toBe("anthropic");
    expect(mediaTokenRuleForModel("gemini-2.5-flash")).toBe("conservative");
  });
});

describe("media in a compiled request", () => {
  const photo = image(1024, 1024);
  const withPhoto: Message = { role: "user", content: [{ type: "text", text: "What is in this photo?" }, photo] };
  const textOnly: Message = { role: "user", content: [{ type: "text", text: "What is in this photo?" }] };
  const transcript = (message: Message): SourceMessage[] => [{ id: "message:1", message }];
  const FAST: CompileConfig = { ...CONFIG, tokenCounter: estimatedTokenCounter() };

  it("charges the image to its message's item, sends the part as it is, and rebuilds the same bytes", () => {
    const bare = compile(inputAt(transcript(textOnly), 1), FAST);
    const result = compile(inputAt(transcript(withPhoto), 1), FAST);
    const tokensOf = (manifest: typeof result.manifest) => manifest.items.find((item) => item.id === "message:1")!.tokens;
    expect(tokensOf(result.manifest) - tokensOf(bare.manifest)).toBe(765);
    expect(result.manifest.allocation.used - bare.manifest.allocation.used).toBe(765);
    expect(result.request.messages.at(-1)).toEqual(withPhoto);
    const rebuilt = rebuildRequest({
      manifest: result.manifest,
      source: inputAt(transcript(withPhoto), 1),
      artifacts: new Map(result.artifacts.map((entry) => [entry.hash, entry.text])),
    });
    expect(rebuilt.request).toEqual(result.request);
    expect(rebuilt.requestHash).toBe(result.manifest.requestHash);
  });

  it("counts by the configured rule, which changes the config digest only when set", () => {
    const anthropic = compile(inputAt(transcript(withPhoto), 1), { ...FAST, mediaTokens: "anthropic" });
    const openai = compile(inputAt(transcript(withPhoto), 1), FAST);
    const item = (manifest: typeof openai.manifest) => manifest.items.find((entry) => entry.id === "message:1")!.tokens;
    expect(item(anthropic.manifest) - item(openai.manifest)).toBe(1399 - 765);
    expect(anthropic.manifest.configDigest).not.toBe(openai.manifest.configDigest);
    expect(compile(inputAt(transcript(textOnly), 1), FAST).manifest.configDigest).toBe(openai.manifest.configDigest);
  });

  it("leaves an image as it is in an untrusted user message, wrapping only its text", () => {
    const result = compile(inputAt([{ id: "message:1", message: withPhoto, trust: "retrieved" }], 1), FAST);
    const sent = result.request.messages.at(-1)!;
    expect(sent.role === "user" && sent.content[1]).toEqual(photo);
    expect(sent.role === "user" && sent.content[0]!.type === "text" && sent.content[0]!.text).not.toBe("What is in this photo?");
  });

  it("is a CONTEXT_OVERFLOW when the images do not fit", () => {
    const many: Message = { role: "user", content: Array.from({ length: 40 }, () => image()) };
    const config: CompileConfig = { ...FAST, contextWindow: 60_000, maxOutputTokens: 1_000 };
    let thrown: unknown;
    try {
      compile(inputAt(transcript(many), 1), config);
    } catch (error) {
      thrown = error;
    }
    expect(isContextOverflow(thrown)).toBe(true);
  });
});
