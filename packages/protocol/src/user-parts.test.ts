import { describe, expect, it } from "vitest";
import { MessageSchema, ModelRequestSchema } from "./model.js";
import { userMediaIssue } from "./media-admission.js";
import { FilePartSchema, ImagePartSchema, MediaSourceSchema, dataUrl } from "./user-parts.js";

const digest = `sha256:${"c".repeat(64)}`;

describe("user parts beyond text", () => {
  it("still parses a text-only user message as journals before media wrote it", () => {
    const message = { role: "user", content: [{ type: "text", text: "hi" }] };
    expect(MessageSchema.parse(message)).toEqual(message);
  });

  it("parses images and files with an artifact, base64 or URL source", () => {
    const request = {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "compare" },
            {
              type: "image",
              mediaType: "image/png",
              source: { type: "artifact", artifact: { digest, bytes: 70, mediaType: "image/png" } },
              width: 1,
              height: 1,
            },
            { type: "image", mediaType: "image/jpeg", source: { type: "url", url: "https://example.com/a.jpg" }, detail: "high" },
            { type: "file", mediaType: "application/pdf", filename: "a.pdf", pages: 3, source: { type: "base64", data: "JVBERi0=" } },
          ],
        },
      ],
      tools: [],
    };
    expect(ModelRequestSchema.parse(request)).toEqual(request);
  });

  it.each([
    ["a media type with parameters", { type: "image", mediaType: "image/png; q=1", source: { type: "url", url: "https://e.com/a" } }],
    ["an upper-case media type", { type: "image", mediaType: "Image/PNG", source: { type: "url", url: "https://e.com/a" } }],
    ["a data: prefix in base64", { type: "image", mediaType: "image/png", source: { type: "base64", data: "data:image/png;base64,AAAA" } }],
    ["a relative URL", { type: "image", mediaType: "image/png", source: { type: "url", url: "/a.png" } }],
    ["a file: URL", { type: "image", mediaType: "image/png", source: { type: "url", url: "file:///etc/passwd" } }],
    ["base64 not padded to a multiple of 4", { type: "image", mediaType: "image/png", source: { type: "base64", data: "iVBOR" } }],
    ["a digest that is not sha256", { type: "image", mediaType: "image/png", source: { type: "artifact", artifact: { digest: "md5:00", bytes: 1 } } }],
    ["a zero width", { type: "image", mediaType: "image/png", source: { type: "url", url: "https://e.com/a" }, width: 0, height: 1 }],
  ])("refuses %s", (_name, part) => {
    expect(ImagePartSchema.safeParse(part).success).toBe(false);
  });

  it("refuses a file part without a source, and a source of an unknown kind", () => {
    expect(FilePartSchema.safeParse({ type: "file", mediaType: "application/pdf" }).success).toBe(false);
    expect(MediaSourceSchema.safeParse({ type: "path", path: "/etc/passwd" }).success).toBe(false);
  });

  it("checks megabytes of base64 without overflowing the regex stack", () => {
    const large = "QUJD".repeat(5_000_000);
    expect(MediaSourceSchema.safeParse({ type: "base64", data: large }).success).toBe(true);
    expect(MediaSourceSchema.safeParse({ type: "base64", data: `${large}Q` }).success).toBe(false);
  });

  it("writes inline bytes as a data URL", () => {
    expect(dataUrl("image/png", { type: "base64", data: "AAAA" })).toBe("data:image/png;base64,AAAA");
  });
});

describe("userMediaIssue", () => {
  const image = { type: "image", mediaType: "image/gif", source: { type: "base64", data: "R0lG" } } as const;
  const request = (...content: object[]) =>
    ({
      messages: [
        { role: "system", content: "s" },
        { role: "user", content },
      ],
    }) as never;

  it("names the first part a target cannot take: an unresolved artifact, then a modality, then the provider's own rule", () => {
    const artifact = { ...image, source: { type: "artifact", artifact: { digest, bytes: 4 } } };
    expect(userMediaIssue(request({ type: "text", text: "x" }, artifact), ["text"], () => "never asked")).toEqual({
      reason: `message 1 part 1 (image image/gif): its source is artifact ${digest}, not bytes: resolve artifact sources before the call`,
      details: { message: 1, part: 1, type: "image", mediaType: "image/gif", source: "artifact", modality: "image" },
    });
    expect(userMediaIssue(request(image), ["text", "file"], () => "never asked")?.reason).toBe(
      "message 1 part 0 (image image/gif): the model does not take image input (its inputModalities are text, file)",
    );
    expect(userMediaIssue(request(image), ["text", "image"], (part) => `no ${part.mediaType}`)?.reason).toBe(
      "message 1 part 0 (image image/gif): no image/gif",
    );
    expect(userMediaIssue(request(image, { type: "text", text: "x" }), ["text", "image"], () => undefined)).toBeUndefined();
  });

  it("has nothing to say of a request without media, whatever the modalities", () => {
    expect(userMediaIssue(request({ type: "text", text: "x" }), ["text"], () => "never asked")).toBeUndefined();
  });
});
