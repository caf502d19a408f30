// Exact token counts without encoding the whole text each time. js-tiktoken's `encode`
// splits text with the encoding's regex (`pat_str`) and byte-pair-encodes each piece on
// its own, so a text's count is the sum of its pieces' counts. Pieces (" the", "ok", " {")
// repeat enormously, so each piece's count is memoized and the encoder runs only on a miss.
import type { Tiktoken } from "js-tiktoken/lite";
import { O200K_PATTERN, o200kPieceEnd, utf16Units } from "./o200k-pieces.js";

/** Entries per memo generation; at most two generations are kept (see `PieceCounter`). */
export const PIECE_MEMO_ENTRIES = 16_384;
/** Longer pieces are counted every time: they rarely repeat and would make the memo large. */
export const PIECE_MEMO_MAX_LENGTH = 64;

/**
 * Counts tokens as `encoder.encode(text, [], []).length` does (special-token text is
 * ordinary text), memoizing the count of each regex piece. The memo is bounded: when the
 * current generation is full it becomes the previous one and the one before is dropped, so
 * pieces still in use survive a turnover.
 */
export class PieceCounter {
  readonly #encoder: Tiktoken;
  readonly #pieces: RegExp;
  readonly #whole: RegExp;
  /** The hand-written splitter, where there is one for the pattern. */
  readonly #pieceEnd: ((units: Uint16Array, length: number, start: number) => number) | undefined;
  #current = new PieceTable(PIECE_MEMO_ENTRIES);
  #previous = new PieceTable(PIECE_MEMO_ENTRIES);

  constructor(encoder: Tiktoken, patStr: string) {
    this.#encoder = encoder;
    this.#pieces = new RegExp(patStr, "gu");
    this.#whole = new RegExp(patStr, "uy");
    this.#pieceEnd = patStr === O200K_PATTERN ? o200kPieceEnd : undefined;
  }

  count(text: string): number {
    const pieceEnd = this.#pieceEnd;
    if (pieceEnd === undefined) return this.#countMatches(text);
    const units = utf16Units(text);
    const length = text.length;
    let total = 0;
    for (let start = 0; start < length; ) {
      const end = pieceEnd(units, length, start);
      if (end <= start) return this.#countMatches(text);
      const tokens = this.#tokens(text, units, start, end);
      if (tokens < 0) return this.#encoder.encode(text, [], []).length;
      total += tokens;
      start = end;
    }
    return total;
  }

  /** Distinct pieces currently memoized (both generations, a piece may be in both). */
  get memoSize(): number {
    return this.#current.size + this.#previous.size;
  }

  #countMatches(text: string): number {
    const pieces = this.#pieces;
    pieces.lastIndex = 0;
    let total = 0;
    const units = utf16Units(text);
    let match: RegExpExecArray | null;
    while ((match = pieces.exec(text)) !== null) {
      const tokens = this.#tokens(text, units, match.index, match.index + match[0].length);
      if (tokens < 0) return this.#encoder.encode(text, [], []).length;
      total += tokens;
    }
    return total;
  }

  /**
   * Tokens of the piece `text[start, end)`, from the memo or the encoder; -1 when it cannot be
   * counted alone. `units` holds the text's code units.
   */
  #tokens(text: string, units: Uint16Array, start: number, end: number): number {
    // One byte is one token in every tiktoken encoding (each byte has a rank).
    if (end - start === 1 && units[start]! < 0x80) return 1;
    if (end - start > PIECE_MEMO_MAX_LENGTH) return this.#pieceTokens(text.slice(start, end));
    const hash = hashOf(units, start, end);
    let tokens = this.#current.get(units, start, end, hash);
    if (tokens >= 0) return tokens;
    tokens = this.#previous.get(units, start, end, hash);
    if (tokens < 0) tokens = this.#pieceTokens(text.slice(start, end));
    if (tokens < 0) return tokens;
    if (this.#current.size >= PIECE_MEMO_ENTRIES) {
      this.#previous = this.#current;
      this.#current = new PieceTable(PIECE_MEMO_ENTRIES);
    }
    this.#current.set(units, start, end, hash, tokens);
    return tokens;
  }

  /**
   * The piece's tokens in context equal `encode(piece)` only when the regex, run on the
   * piece alone, gives back the whole piece (true of the shipped patterns, whose only
   * lookahead is `\s+(?!\S)`). Returns -1 otherwise, and the caller counts the whole text.
   */
  #pieceTokens(piece: string): number {
    const whole = this.#whole;
    whole.lastIndex = 0;
    const alone = whole.exec(piece);
    if (piece.length === 0 || alone === null || alone[0].length !== piece.length) return -1;
    return this.#encoder.encode(piece, [], []).length;
  }
}

/** FNV-1a over the code units `units[start, end)`. */
function hashOf(units: Uint16Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let index = start; index < end; index++) hash = Math.imul(hash ^ units[index]!, 0x01000193);
  return hash;
}

/**
 * Piece → token count, open addressing, looked up by a span of the text so that a hit
 * allocates nothing. Holds up to `entries` pieces in twice as many slots.
 */
class PieceTable {
  readonly #mask: number;
  readonly #keys: (string | undefined)[];
  readonly #hashes: Int32Array;
  readonly #tokens: Int32Array;
  size = 0;

  constructor(entries: number) {
    const slots = 2 ** Math.ceil(Math.log2(entries * 2));
    this.#mask = slots - 1;
    this.#keys = new Array<string | undefined>(slots).fill(undefined);
    this.#hashes = new Int32Array(slots);
    this.#tokens = new Int32Array(slots);
  }

  /** The count of the piece `units[start, end)`, or -1. */
  get(units: Uint16Array, start: number, end: number, hash: number): number {
    const length = end - start;
    for (let slot = hash & this.#mask; ; slot = (slot + 1) & this.#mask) {
      const key = this.#keys[slot];
      if (key === undefined) return -1;
      if (this.#hashes[slot] !== hash || key.length !== length) continue;
      let index = 0;
      while (index < length && key.charCodeAt(index) === units[start + index]) index++;
      if (index === length) return this.#tokens[slot]!;
    }
  }

  /** Adds the piece `units[start, end)`, which `get` did not find; the caller keeps the size under `entries`. */
  set(units: Uint16Array, start: number, end: number, hash: number, tokens: number): void {
    let slot = hash & this.#mask;
    while (this.#keys[slot] !== undefined) slot = (slot + 1) & this.#mask;
    // A string of its own: a slice of the text would keep the whole text alive.
    this.#keys[slot] = String.fromCharCode(...units.subarray(start, end));
    this.#hashes[slot] = hash;
    this.#tokens[slot] = tokens;
    this.size++;
  }
}
