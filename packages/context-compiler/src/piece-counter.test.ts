import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import fc from "fast-check";
import { Tiktoken, type TiktokenBPE } from "js-tiktoken/lite";
import { beforeAll, describe, expect, it } from "vitest";
import { anyText } from "./__fixtures__/tokenizer-text.js";
import { PIECE_MEMO_ENTRIES, PieceCounter } from "./piece-counter.js";
import { tiktokenCounter, type TiktokenEncodingName } from "./tokenizer.js";

// The reference: js-tiktoken itself, with encoders of its own (no memo anywhere).
const require = createRequire(import.meta.url);
const reference = new Map<TiktokenEncodingName, { encoder: Tiktoken; ranks: TiktokenBPE }>();
function referenceFor(encoding: TiktokenEncodingName) {
  let found = reference.get(encoding);
  if (found === undefined) {
    const loaded = require(`js-tiktoken/ranks/${encoding}`) as TiktokenBPE | { default: TiktokenBPE };
    const ranks = "default" in loaded ? loaded.default : loaded;
    found = { encoder: new Tiktoken(ranks), ranks };
    reference.set(encoding, found);
  }
  return found;
}
const exact = (encoding: TiktokenEncodingName, text: string) => referenceFor(encoding).encoder.encode(text, [], []).length;

const ENCODINGS = ["o200k_base", "cl100k_base"] as const;

/**
 * Cases per encoding. Each case counts four texts with three counters; 100 cases take about
 * 1 s on an idle core and stayed far inside PROPERTY_TIMEOUT_MS on a loaded 2-core machine
 * (300 cases took up to 27 s there, against the 30 s default). Seeds differ between runs
 * (scripts/vitest-setup.ts), so the cases covered grow over CI runs; YOKE_FC_SEED replays one.
 */
const PROPERTY_RUNS = 100;
const PROPERTY_TIMEOUT_MS = 120_000;

describe("memoized token counting", () => {
  // Building an encoder from its ranks takes seconds under load: done once, outside the timed tests.
  beforeAll(() => {
    for (const encoding of ENCODINGS) {
      referenceFor(encoding);
      tiktokenCounter(encoding).count("warm up");
    }
  }, PROPERTY_TIMEOUT_MS);

  for (const encoding of ENCODINGS) {
    it(`equals js-tiktoken's encode(text).length on arbitrary text (${encoding})`, { timeout: PROPERTY_TIMEOUT_MS }, () => {
      const counter = tiktokenCounter(encoding);
      const { encoder, ranks } = referenceFor(encoding);
      fc.assert(
        fc.property(anyText, anyText, (first, second) => {
          // A fresh memo and the shared, warm one; the second text reuses the first's pieces.
          const fresh = new PieceCounter(encoder, ranks.pat_str);
          for (const sample of [first, second, first + second, second + first]) {
            const expected = exact(encoding, sample);
            expect(fresh.count(sample)).toBe(expected);
            expect(counter.count(sample)).toBe(sample.length === 0 ? 0 : expected);
          }
        }),
        { numRuns: PROPERTY_RUNS },
      );
    });

    it(`equals js-tiktoken's count on a corpus of prose, code and JSON (${encoding})`, () => {
      const counter = tiktokenCounter(encoding);
      const root = join(import.meta.dirname, "..");
      const files = [
        join(root, "README.md"),
        ...readdirSync(import.meta.dirname)
          .filter((name) => name.endsWith(".ts"))
          .map((name) => join(import.meta.dirname, name)),
      ];
      const corpus = files.map((file) => readFileSync(file, "utf8"));
      corpus.push(JSON.stringify(JSON.parse(readFileSync(join(root, "package.json"), "utf8")), null, 2), corpus.join("\r\n"));
      for (const document of corpus) {
        expect(counter.count(document)).toBe(exact(encoding, document));
        for (const line of document.split("\n")) expect(counter.count(line)).toBe(exact(encoding, line));
      }
    });
  }

  it("keeps the memo bounded", () => {
    const { encoder, ranks } = referenceFor("o200k_base");
    const counter = new PieceCounter(encoder, ranks.pat_str);
    const words = Array.from({ length: PIECE_MEMO_ENTRIES * 3 }, (_, index) => ` w${index.toString(36)}x`);
    expect(counter.count(words.join(""))).toBe(exact("o200k_base", words.join("")));
    expect(counter.memoSize).toBeLessThanOrEqual(2 * PIECE_MEMO_ENTRIES);
    expect(counter.count(` ${"long".repeat(100)}`)).toBe(exact("o200k_base", ` ${"long".repeat(100)}`));
  });

  it("counts the whole text with the encoder when a piece would split differently on its own", () => {
    const { encoder } = referenceFor("o200k_base");
    // "  " is one piece before "x" (the lookahead) but two on its own.
    const counter = new PieceCounter(encoder, String.raw`\s+(?=x)|\s|\S`);
    expect(counter.count("  x")).toBe(exact("o200k_base", "  x"));
    expect(counter.memoSize).toBe(0);
  });
});
