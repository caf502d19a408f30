import { createMemoryArtifactStore } from "@yoke/journal";
import { YokeError, canonicalJson, type ArtifactStoreV2, type ModelRequest, type UserPart } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { describeMedia } from "./media-sniff.js";
import { admitUserMedia, resolveUserMedia, storeUserMedia, type UserPartInput } from "./user-media.js";

const u32be = (value: number) => [(value >>> 24) & 255, (value >>> 16) & 255, (value >>> 8) & 255, value & 255];
const u16be = (value: number) => [(value >>> 8) & 255, value & 255];
const u16le = (value: number) => [value & 255, (value >>> 8) & 255];
const u24le = (value: number) => [value & 255, (value >>> 8) & 255, (value >>> 16) & 255];
const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));

/** A PNG's signature and IHDR chunk for `width` x `height`, then `padding` bytes. */
const png = (width: number, height: number, padding = 16) =>
  Uint8Array.from([
    0x89,
    0x50,
    0x4e,
    0x47,
    0x0d,
    0x0a,
    0x1a,
    0x0a,
    ...u32be(13),
    ...ascii("IHDR"),
    ...u32be(width),
    ...u32be(height),
    8,
    6,
    0,
    0,
    0,
    ...new Array(padding).fill(7),
  ]);
const jpeg = (width: number, height: number) =>
  Uint8Array.from([
    0xff,
    0xd8,
    0xff,
    0xe0,
    ...u16be(16),
    ...ascii("JFIF"),
    0,
    1,
    1,
    0,
    0,
    1,
    0,
    1,
    0,
    0,
    0xff,
    0xc0,
    ...u16be(17),
    8,
    ...u16be(height),
    ...u16be(width),
    3,
    1,
    0x22,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
  ]);
const gif = (width: number, height: number) => Uint8Array.from([...ascii("GIF89a"), ...u16le(width), ...u16le(height), 0, 0, 0]);
const webp = (width: number, height: number) =>
  Uint8Array.from([...ascii("RIFF"), 0, 0, 0, 0, ...ascii("WEBPVP8X"), 10, 0, 0, 0, 0, 0, 0, 0, ...u24le(width - 1), ...u24le(height - 1)]);
const pdf = (pages: number) =>
  new TextEncoder().encode(
    `%PDF-1.4\n1 0 obj<</Type /Pages /Count ${pages}>>endobj\n${Array.from({ length: pages }, (_, i) => `${i + 2} 0 obj<</Type /Page>>endobj\n`).join("")}%%EOF\n`,
  );

const acme = { tenantId: "acme" };
const globex = { tenantId: "globex" };

/** A memory store that counts its puts and gets. */
function countingStore(): { artifacts: ArtifactStoreV2; puts: () => number; gets: () => number } {
  const inner = createMemoryArtifactStore();
  let puts = 0;
  let gets = 0;
  const artifacts: ArtifactStoreV2 = {
    specificationVersion: "v2",
    put: (scope, content, meta) => {
      puts++;
      return inner.put(scope, content, meta);
    },
    get: (scope, ref) => {
      gets++;
      return inner.get(scope, ref);
    },
    has: (scope, ref) => inner.has(scope, ref),
  };
  return { artifacts, puts: () => puts, gets: () => gets };
}

const rejection = async (promise: Promise<unknown>): Promise<YokeError> => {
  try {
    await promise;
  } catch (error) {
    if (YokeError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a rejection");
};

describe("describeMedia", () => {
  it("reads the pixel size of PNG, JPEG, GIF and WebP headers and the pages of a PDF", () => {
    expect(describeMedia(png(640, 480), "image/png")).toEqual({ width: 640, height: 480 });
    expect(describeMedia(png(70_000, 3), "image/png")).toEqual({ width: 70_000, height: 3 });
    expect(describeMedia(jpeg(1024, 768), "image/jpeg")).toEqual({ width: 1024, height: 768 });
    expect(describeMedia(gif(300, 200), "image/gif")).toEqual({ width: 300, height: 200 });
    expect(describeMedia(webp(2000, 1500), "image/webp")).toEqual({ width: 2000, height: 1500 });
    expect(describeMedia(pdf(3), "application/pdf")).toEqual({ pages: 3 });
  });

  it("calls bytes without the claimed signature a mismatch, and takes other types as claimed", () => {
    expect(describeMedia(jpeg(1, 1), "image/png").mismatch).toBe("its bytes do not start with the image/png signature");
    expect(describeMedia(png(1, 1), "application/pdf").mismatch).toBeDefined();
    expect(describeMedia(new TextEncoder().encode("a,b\n"), "text/csv")).toEqual({});
  });
});

describe("storeUserMedia", () => {
  it("puts each image's bytes once for the tenant and references them; text and URLs pass as they are", async () => {
    const { artifacts, puts } = countingStore();
    const bytes = png(1024, 1024, 4096);
    const url: UserPart = { type: "image", mediaType: "image/jpeg", source: { type: "url", url: "https://example.com/a.jpg" } };
    const parts = await storeUserMedia(
      [
        { type: "text", text: "Same photo twice:" },
        { type: "image", mediaType: "image/png", source: { type: "bytes", data: bytes } },
        { type: "image", mediaType: "image/png", source: { type: "base64", data: Buffer.from(bytes).toString("base64") }, detail: "low" },
        url,
      ],
      { artifacts, scope: acme },
    );
    expect(puts()).toBe(1);
    const digest = `sha256:${(await import("node:crypto")).createHash("sha256").update(bytes).digest("hex")}`;
    const stored = { type: "artifact", artifact: { digest, bytes: bytes.length, mediaType: "image/png" } };
    expect(parts).toEqual([
      { type: "text", text: "Same photo twice:" },
      { type: "image", mediaType: "image/png", source: stored, width: 1024, height: 1024 },
      { type: "image", mediaType: "image/png", source: stored, width: 1024, height: 1024, detail: "low" },
      url,
    ]);
    expect(await artifacts.has(acme, digest)).toBe(true);
    expect(await artifacts.has(globex, digest)).toBe(false);
  });

  it("keeps an event small however large the bytes: the parts hold a digest", async () => {
    const { artifacts } = countingStore();
    const big = png(4000, 3000, 3_000_000);
    const parts = await storeUserMedia([{ type: "image", mediaType: "image/png", source: { type: "bytes", data: big } }], { artifacts, scope: acme });
    expect(canonicalJson(parts as never).length).toBeLessThan(300);
  });

  it("fills a PDF's page count and keeps a size or count the part gives", async () => {
    const { artifacts } = countingStore();
    const parts = await storeUserMedia(
      [
        { type: "file", mediaType: "application/pdf", filename: "q3.pdf", source: { type: "bytes", data: pdf(4) } },
        { type: "file", mediaType: "application/pdf", source: { type: "bytes", data: pdf(2) }, pages: 9 },
        { type: "image", mediaType: "image/png", source: { type: "bytes", data: png(10, 10) }, width: 20, height: 20 },
      ],
      { artifacts, scope: acme },
    );
    expect(parts.map((part) => (part.type === "file" ? part.pages : part.type === "image" ? [part.width, part.height] : undefined))).toEqual([4, 9, [20, 20]]);
  });

  it("refuses bytes that are not the type the part claims, and base64 that is not base64, naming the part (USER_MEDIA_INVALID)", async () => {
    const { artifacts, puts } = countingStore();
    const claimed: UserPartInput = { type: "image", mediaType: "image/png", source: { type: "bytes", data: jpeg(2, 2) } };
    const mismatch = await rejection(storeUserMedia([{ type: "text", text: "x" }, claimed], { artifacts, scope: acme }));
    expect(mismatch.code).toBe("USER_MEDIA_INVALID");
    expect(mismatch.message).toBe("user part 1 claims image/png but its bytes do not start with the image/png signature");
    expect(mismatch.details).toEqual({ part: 1, mediaType: "image/png", reason: "its bytes do not start with the image/png signature" });
    for (const data of ["data:image/png;base64,iVBOR", "iVBOR", "iVB*Rw=="]) {
      const error = await rejection(storeUserMedia([{ type: "image", mediaType: "image/png", source: { type: "base64", data } }], { artifacts, scope: acme }));
      expect([error.code, error.details]).toEqual(["USER_MEDIA_INVALID", { part: 0, mediaType: "image/png", reason: "not valid base64" }]);
    }
    expect(puts()).toBe(0);
  });

  it("takes an artifact source only when the tenant's own store holds it (ARTIFACT_MISSING for another tenant's)", async () => {
    const { artifacts } = countingStore();
    const [part] = await storeUserMedia([{ type: "image", mediaType: "image/gif", source: { type: "bytes", data: gif(4, 4) } }], { artifacts, scope: acme });
    expect(await storeUserMedia([part!], { artifacts, scope: acme })).toEqual([part]);
    const error = await rejection(storeUserMedia([part!], { artifacts, scope: globex }));
    expect(error.code).toBe("ARTIFACT_MISSING");
  });
});

describe("resolveUserMedia", () => {
  const request = (...content: UserPart[]): ModelRequest => ({
    messages: [
      { role: "system", content: "s" },
      { role: "user", content },
    ],
    tools: [],
  });

  it("gives the provider call the stored bytes as base64, reading each digest once with a cache", async () => {
    const { artifacts, gets } = countingStore();
    const bytes = webp(800, 600);
    const parts = await storeUserMedia(
      [
        { type: "text", text: "look" },
        { type: "image", mediaType: "image/webp", source: { type: "bytes", data: bytes } },
      ],
      { artifacts, scope: acme },
    );
    const compiled = request(...parts);
    const cache = new Map();
    const sent = await resolveUserMedia(compiled, { artifacts, scope: acme }, cache);
    expect(sent.messages[1]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "look" },
        { type: "image", mediaType: "image/webp", source: { type: "base64", data: Buffer.from(bytes).toString("base64") }, width: 800, height: 600 },
      ],
    });
    expect(sent.messages[0]).toBe(compiled.messages[0]);
    expect(compiled.messages[1]).toEqual({ role: "user", content: parts });
    await resolveUserMedia(compiled, { artifacts, scope: acme }, cache);
    expect(gets()).toBe(1);
  });

  it("returns the same request when nothing is a reference", async () => {
    const { artifacts, gets } = countingStore();
    const plain = request({ type: "text", text: "hi" }, { type: "image", mediaType: "image/png", source: { type: "url", url: "https://example.com/a.png" } });
    expect(await resolveUserMedia(plain, { artifacts, scope: acme })).toBe(plain);
    expect(gets()).toBe(0);
  });

  it("cannot read another tenant's bytes (ARTIFACT_MISSING)", async () => {
    const { artifacts } = countingStore();
    const parts = await storeUserMedia([{ type: "file", mediaType: "application/pdf", source: { type: "bytes", data: pdf(1) } }], { artifacts, scope: acme });
    const error = await rejection(resolveUserMedia(request(...parts), { artifacts, scope: globex }));
    expect(error.code).toBe("ARTIFACT_MISSING");
  });
});

describe("admitUserMedia", () => {
  const provider = (inputModalities: ("text" | "image" | "file")[]) =>
    ({ provider: "scripted", modelId: "m", capabilities: { inputModalities } }) as unknown as Parameters<typeof admitUserMedia>[1];
  const parts: UserPartInput[] = [
    { type: "text", text: "x" },
    { type: "image", mediaType: "image/png", source: { type: "bytes", data: png(1, 1) } },
    { type: "file", mediaType: "application/pdf", source: { type: "url", url: "https://example.com/a.pdf" } },
  ];

  it("passes input whose every modality the provider declares", () => {
    expect(() => admitUserMedia(parts, provider(["text", "image", "file"]))).not.toThrow();
    expect(() => admitUserMedia([{ type: "text", text: "x" }], provider(["text"]))).not.toThrow();
  });

  it("refuses the first part of an undeclared modality, naming it (PROVIDER_ADMISSION_REJECTED)", () => {
    let thrown: unknown;
    try {
      admitUserMedia(parts, provider(["text", "image"]));
    } catch (error) {
      thrown = error;
    }
    expect(YokeError.isInstance(thrown) && thrown.code).toBe("PROVIDER_ADMISSION_REJECTED");
    expect((thrown as YokeError).details).toMatchObject({ part: 2, modality: "file", mediaType: "application/pdf", model: "m" });
    expect((thrown as YokeError).message).toBe(
      "m cannot take this input: user part 2 (file application/pdf): the model does not take file input (its inputModalities are text, image)",
    );
  });
});
