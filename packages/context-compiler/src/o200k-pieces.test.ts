import { createRequire } from "node:module";
import fc from "fast-check";
import type { TiktokenBPE } from "js-tiktoken/lite";
import { describe, expect, it } from "vitest";
import { anyText } from "./__fixtures__/tokenizer-text.js";
import { O200K_PATTERN, o200kPieceEnd, utf16Units } from "./o200k-pieces.js";

const regex = new RegExp(O200K_PATTERN, "gu");

function scanned(text: string): string[] {
  const pieces: string[] = [];
  const units = utf16Units(text);
  for (let start = 0; start < text.length; ) {
    const end = o200kPieceEnd(units, text.length, start);
    if (end <= start) expect.fail(`no piece at ${start}`);
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

describe("o200k_base split", () => {
  it("reads the code units of any text, long ones included", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), fc.integer({ min: 0, max: 70_000 }), (text, padding) => {
        const padded = text + "x".repeat(padding % 3 === 0 ? padding : 0);
        const units = utf16Units(padded);
        expect(Array.from(units.subarray(0, padded.length), (unit) => String.fromCharCode(unit)).join("")).toBe(padded);
      }),
      { numRuns: 200 },
    );
  });

  it("is the pattern js-tiktoken ships", () => {
    const loaded = createRequire(import.meta.url)("js-tiktoken/ranks/o200k_base") as TiktokenBPE | { default: TiktokenBPE };
    expect(("default" in loaded ? loaded.default : loaded).pat_str).toBe(O200K_PATTERN);
  });

  it("gives the regex's pieces on arbitrary text", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(scanned(text)).toEqual(text.match(regex) ?? []);
      }),
      { numRuns: 20_000 },
    );
  });

  it("gives the regex's pieces at every boundary of a mixed sample", () => {
    const sample = "Hello, World! I'm HTTPServer's ÉCOLE ǅungla ʰAʰ 漢字\u0301x 12345 ٣٣\r\n\n  \t foo/bar//\n😀𝐀𝐚 'LL 'Re\u00A0\u00A0x \uD800z   ";
    for (let start = 0; start < sample.length; start++) {
      for (let end = start; end <= sample.length; end++) {
        const text = sample.slice(start, end);
        expect(scanned(text)).toEqual(text.match(regex) ?? []);
      }
    }
  });
});
