import { createRequire } from "node:module";
import { Tiktoken, type TiktokenBPE } from "js-tiktoken/lite";
import { YokeError } from "@yoke/protocol";
import { PieceCounter } from "./piece-counter.js";

/** How a count was made: with the model's own tokenizer, or a declared estimate. */
export type TokenCountMode = "exact" | "estimated";

/**
 * Counts tokens of text for one model family. The manifest records `encoding` and `mode`,
 * so a reader knows whether the allocation was exact or estimated.
 *
 * @example
 * ```ts
 * const counter = tokenCounterForModel("gpt-4o");
 * counter.count("hello world"); // 2 (o200k_base, exact)
 * ```
 */
export interface TokenCounter {
  readonly encoding: string;
  readonly mode: TokenCountMode;
  /** Characters per token, for an estimate. */
  readonly charsPerToken?: number;
  count(text: string): number;
}

export type TiktokenEncodingName = "o200k_base" | "cl100k_base";

/**
 * Characters per token used where no exact tokenizer exists (Claude, Gemini, local models).
 * Calibrated in `tokenizer.test.ts` against o200k_base and cl100k_base on English prose,
 * source code and JSON: it errs towards over-counting, so a budget it allows is not exceeded.
 */
export const ESTIMATED_CHARS_PER_TOKEN = 3.2;

// The rank tables are megabytes each: they are loaded (synchronously, from the package, no
// network) the first time a count needs them, not when this module is imported.
const RANK_MODULES: Record<TiktokenEncodingName, string> = {
  o200k_base: "js-tiktoken/ranks/o200k_base",
  cl100k_base: "js-tiktoken/ranks/cl100k_base",
};
const requireRanks = createRequire(import.meta.url);
// Building an encoder parses its ranks (hundreds of ms), so each is built once, on first use,
// and shared, with its memo of piece counts, by every counter for the encoding.
const pieceCounters = new Map<TiktokenEncodingName, PieceCounter>();

function loadRanks(encoding: TiktokenEncodingName): TiktokenBPE {
  const loaded = requireRanks(RANK_MODULES[encoding]) as TiktokenBPE | { default: TiktokenBPE };
  return "default" in loaded ? loaded.default : loaded;
}

function pieceCounterFor(encoding: TiktokenEncodingName): PieceCounter {
  let counter = pieceCounters.get(encoding);
  if (counter === undefined) {
    const ranks = loadRanks(encoding);
    counter = new PieceCounter(new Tiktoken(ranks), ranks.pat_str);
    pieceCounters.set(encoding, counter);
  }
  return counter;
}

/**
 * A counter backed by js-tiktoken's encoder for `encoding` (ranks ship in the package: no
 * network). Counts equal `encode(text).length`; each regex piece's count is memoized
 * (bounded, shared per encoding), so repeated text costs a lookup, not an encode.
 */
export function tiktokenCounter(encoding: TiktokenEncodingName): TokenCounter {
  if (!Object.hasOwn(RANK_MODULES, encoding)) {
    throw new YokeError("CONFIG_INVALID", `unknown tiktoken encoding ${String(encoding)}`);
  }
  return {
    encoding,
    mode: "exact",
    count(text) {
      if (text.length === 0) return 0;
      // Special-token text such as "<|endoftext|>" in content is ordinary text here.
      return pieceCounterFor(encoding).count(text);
    },
  };
}

/** A declared estimate: `ceil(characters / charsPerToken)`. */
export function estimatedTokenCounter(charsPerToken: number = ESTIMATED_CHARS_PER_TOKEN, encoding = "estimate"): TokenCounter {
  if (!(charsPerToken > 0)) throw new YokeError("CONFIG_INVALID", "charsPerToken must be positive", { details: { charsPerToken } });
  return { encoding, mode: "estimated", charsPerToken, count: (text) => Math.ceil(text.length / charsPerToken) };
}

/**
 * The encoding OpenAI uses for `model`, or undefined when the model is not an OpenAI one.
 * o200k_base for gpt-4o, gpt-4.1, gpt-4.5, gpt-5 and the o-series; cl100k_base for gpt-4,
 * gpt-3.5 and the embedding models.
 */
export function encodingForModel(model: string): TiktokenEncodingName | undefined {
  const name = model.toLowerCase().replace(/^openai\//, "");
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|chatgpt-4o|o[1-9](-|$))/.test(name)) return "o200k_base";
  if (/^(gpt-4|gpt-3\.5|gpt-35|text-embedding-)/.test(name)) return "cl100k_base";
  return undefined;
}

/**
 * The counter for a model: exact where its tokenizer is known, otherwise the declared
 * estimate (its encoding is named `estimate:<model family>`).
 *
 * @example
 * ```ts
 * tokenCounterForModel("gpt-4.1").mode;            // "exact"
 * tokenCounterForModel("claude-sonnet-4-5").mode;  // "estimated"
 * ```
 */
export function tokenCounterForModel(model: string): TokenCounter {
  const encoding = encodingForModel(model);
  if (encoding !== undefined) return tiktokenCounter(encoding);
  const family = model.toLowerCase().split(/[-/.]/)[0] ?? "unknown";
  return estimatedTokenCounter(ESTIMATED_CHARS_PER_TOKEN, `estimate:${family}`);
}
