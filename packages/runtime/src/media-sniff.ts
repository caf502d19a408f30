// What the first bytes of an image or PDF say: whether they are the type a part claims, an
// image's pixel size, a PDF's page count. Read from headers only; nothing is decoded.

/** What the bytes say of themselves. `mismatch`: why they are not the claimed type. */
export interface MediaFacts {
  readonly mismatch?: string;
  readonly width?: number;
  readonly height?: number;
  readonly pages?: number;
}

const startsWith = (bytes: Uint8Array, signature: readonly number[], at = 0): boolean => signature.every((byte, index) => bytes[at + index] === byte);
const ascii = (text: string): number[] => [...text].map((char) => char.charCodeAt(0));
const u16le = (bytes: Uint8Array, at: number): number => (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8);
const u16be = (bytes: Uint8Array, at: number): number => ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0);
const u24le = (bytes: Uint8Array, at: number): number => u16le(bytes, at) | ((bytes[at + 2] ?? 0) << 16);
const u32be = (bytes: Uint8Array, at: number): number => (bytes[at] ?? 0) * 2 ** 24 + u16be(bytes, at + 1) * 2 ** 8 + (bytes[at + 3] ?? 0);

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
// Start-of-frame markers carry the size: C0–CF but DHT (C4), JPG (C8) and DAC (CC).
const JPEG_FRAMES = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

function sized(width: number, height: number): MediaFacts {
  return width > 0 && height > 0 ? { width, height } : {};
}

function png(bytes: Uint8Array): MediaFacts | undefined {
  if (!startsWith(bytes, PNG)) return undefined;
  return startsWith(bytes, ascii("IHDR"), 12) ? sized(u32be(bytes, 16), u32be(bytes, 20)) : {};
}

function jpeg(bytes: Uint8Array): MediaFacts | undefined {
  if (!startsWith(bytes, [0xff, 0xd8, 0xff])) return undefined;
  let at = 2;
  while (at + 9 < bytes.length && bytes[at] === 0xff) {
    const marker = bytes[at + 1]!;
    if (JPEG_FRAMES.has(marker)) return sized(u16be(bytes, at + 7), u16be(bytes, at + 5));
    at += 2 + u16be(bytes, at + 2);
  }
  return {};
}

function gif(bytes: Uint8Array): MediaFacts | undefined {
  if (!startsWith(bytes, ascii("GIF87a")) && !startsWith(bytes, ascii("GIF89a"))) return undefined;
  return sized(u16le(bytes, 6), u16le(bytes, 8));
}

function webp(bytes: Uint8Array): MediaFacts | undefined {
  if (!startsWith(bytes, ascii("RIFF")) || !startsWith(bytes, ascii("WEBP"), 8)) return undefined;
  if (startsWith(bytes, ascii("VP8X"), 12)) return sized(1 + u24le(bytes, 24), 1 + u24le(bytes, 27));
  if (startsWith(bytes, ascii("VP8L"), 12)) {
    const bits = (bytes[21] ?? 0) | ((bytes[22] ?? 0) << 8) | ((bytes[23] ?? 0) << 16) | ((bytes[24] ?? 0) << 24);
    return sized((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (startsWith(bytes, ascii("VP8 "), 12)) return sized(u16le(bytes, 26) & 0x3fff, u16le(bytes, 28) & 0x3fff);
  return {};
}

function pdf(bytes: Uint8Array): MediaFacts | undefined {
  if (!startsWith(bytes, ascii("%PDF-"))) return undefined;
  // Page objects outside compressed object streams; none found (all compressed) leaves the count unknown.
  const pages = new TextDecoder("latin1").decode(bytes).match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
  return pages > 0 ? { pages } : {};
}

const READERS: Readonly<Record<string, (bytes: Uint8Array) => MediaFacts | undefined>> = {
  "image/png": png,
  "image/jpeg": jpeg,
  "image/gif": gif,
  "image/webp": webp,
  "application/pdf": pdf,
};

/**
 * The facts of `bytes` claimed to be `mediaType`. A type this module reads (PNG, JPEG, GIF,
 * WebP, PDF) whose signature is absent is a mismatch; any other type is taken as claimed.
 */
export function describeMedia(bytes: Uint8Array, mediaType: string): MediaFacts {
  const read = READERS[mediaType];
  if (read === undefined) return {};
  return read(bytes) ?? { mismatch: `its bytes do not start with the ${mediaType} signature` };
}
