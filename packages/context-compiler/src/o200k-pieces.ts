// o200k_base's split regex as a hand-written scanner: the same pieces as
// `text.match(new RegExp(O200K_PATTERN, "gu"))`, several times faster (no match objects, a
// table lookup per character). It reads the text's UTF-16 code units from a typed array
// (see `utf16Units`): reading a string built by concatenation, code unit by code unit, costs
// several times more. `o200k-pieces.test.ts` checks it against the regex.
//
//   1  [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(contraction)?
//   2  [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(contraction)?
//   3  \p{N}{1,3}
//   4   ?[^\s\p{L}\p{N}]+[\r\n/]*
//   5  \s*[\r\n]+
//   6  \s+(?!\S)
//   7  \s+

/** `pat_str` of js-tiktoken's o200k_base ranks: the scanner is used only for exactly this pattern. */
export const O200K_PATTERN =
  "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

const LETTER = 1; // \p{L}
const UPPER = 2; // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
const LOWER = 4; // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
const NUMBER = 8; // \p{N}
const SPACE = 16; // \s
const NEWLINE = 32; // [\r\n]
const KNOWN = 64;

const CLASSES: readonly [number, RegExp][] = [
  [LETTER, /\p{L}/u],
  [UPPER, /[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]/u],
  [LOWER, /[\p{Ll}\p{Lm}\p{Lo}\p{M}]/u],
  [NUMBER, /\p{N}/u],
  [SPACE, /\s/u],
  [NEWLINE, /[\r\n]/u],
];

function classify(codePoint: number): number {
  const char = String.fromCodePoint(codePoint);
  let flags = KNOWN;
  for (const [flag, pattern] of CLASSES) if (pattern.test(char)) flags |= flag;
  return flags;
}

// Classes of BMP code points, filled as they are met (64 KiB); astral ones in a map.
const bmp = new Uint8Array(0x10000);
const astral = new Map<number, number>();

function flagsOf(codePoint: number): number {
  if (codePoint < 0x10000) {
    let flags = bmp[codePoint]!;
    if (flags === 0) bmp[codePoint] = flags = classify(codePoint);
    return flags;
  }
  let flags = astral.get(codePoint);
  if (flags === undefined) astral.set(codePoint, (flags = classify(codePoint)));
  return flags;
}

/** [^\r\n\p{L}\p{N}] */
const isPrefix = (flags: number) => (flags & (LETTER | NUMBER | NEWLINE)) === 0;
/** [^\s\p{L}\p{N}] */
const isSymbol = (flags: number) => (flags & (LETTER | NUMBER | SPACE)) === 0;

// Width in UTF-16 units of the code point `flagsAt` last read.
let width = 1;

function flagsAt(units: Uint16Array, length: number, index: number): number {
  const unit = units[index]!;
  if (unit < 0xd800 || unit > 0xdbff || index + 1 >= length) {
    width = 1;
    const flags = bmp[unit]!;
    return flags === 0 ? (bmp[unit] = classify(unit)) : flags;
  }
  const low = units[index + 1]!;
  if (low < 0xdc00 || low > 0xdfff) {
    width = 1;
    return flagsOf(unit);
  }
  width = 2;
  return flagsOf(0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00));
}

/** Texts up to this many code units are copied into one reused array; longer ones get their own. */
const SCRATCH_UNITS = 1 << 16;
let scratch: Uint16Array = new Uint16Array(0);
let scratchBytes: Buffer | undefined;

/** The code units of `text` (the first `text.length` of the array), valid until the next call. */
export function utf16Units(text: string): Uint16Array {
  if (text.length > SCRATCH_UNITS) return unitsOf(text, Buffer.allocUnsafeSlow(2 * text.length));
  if (scratchBytes === undefined || scratch.length < text.length) {
    scratchBytes = Buffer.allocUnsafeSlow(2 * Math.min(SCRATCH_UNITS, Math.max(1_024, text.length, 2 * scratch.length)));
    scratch = new Uint16Array(scratchBytes.buffer, scratchBytes.byteOffset, scratchBytes.length / 2);
  }
  scratchBytes.write(text, 0, "utf16le");
  return scratch;
}

function unitsOf(text: string, bytes: Buffer): Uint16Array {
  bytes.write(text, 0, "utf16le");
  return new Uint16Array(bytes.buffer, bytes.byteOffset, text.length);
}

/**
 * The end of the piece that starts at `start` (`start < length`) in the first `length` code
 * units of `units`, or -1 where no alternative matches (the caller then splits with the regex).
 */
export function o200kPieceEnd(units: Uint16Array, length: number, start: number): number {
  // Fast path: an ASCII word, after an optional ASCII prefix character (" the", "_file").
  const code = units[start]!;
  if (code < 0x80) {
    const from = isAsciiLetter(code) || isAsciiDigit(code) || code === 0x0a || code === 0x0d ? start : start + 1;
    if (from < length && isAsciiLetter(units[from]!)) {
      const end = asciiWord(units, length, from);
      if (end >= 0) return end + contraction(units, length, end);
    }
  }
  return pieceEnd(units, length, start);
}

const isAsciiLetter = (code: number) => (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a;
const isAsciiDigit = (code: number) => code >= 0x30 && code <= 0x39;

/**
 * Alternatives 1 and 2 over ASCII letters from `from` (a letter): [A-Z]*[a-z]+, else
 * [A-Z]+. -1 when the run ends at a non-ASCII character, which may be a letter or a mark.
 */
function asciiWord(units: Uint16Array, length: number, from: number): number {
  let index = from;
  let code = units[index]!;
  while (code >= 0x41 && code <= 0x5a && ++index < length) code = units[index]!;
  while (code >= 0x61 && code <= 0x7a && ++index < length) code = units[index]!;
  return index < length && code >= 0x80 ? -1 : index;
}

function pieceEnd(units: Uint16Array, length: number, start: number): number {
  const first = flagsAt(units, length, start);
  const second = start + width;

  // Alternatives 1 and 2, each tried with the optional prefix character, then without. With
  // the prefix, both need a letter or mark after it.
  const prefixed = isPrefix(first) && second < length && (flagsAt(units, length, second) & (UPPER | LOWER)) !== 0;
  if (prefixed) {
    const end = upperLower(units, length, second, false);
    if (end >= 0) return end;
  }
  if (first & (UPPER | LOWER)) {
    const end = upperLower(units, length, start, false);
    if (end >= 0) return end;
  }
  if (prefixed) {
    const end = upperLower(units, length, second, true);
    if (end >= 0) return end;
  }
  if (first & UPPER) return upperLower(units, length, start, true);

  if (first & NUMBER) {
    let end = second;
    for (let count = 1; count < 3 && end < length && flagsAt(units, length, end) & NUMBER; count++) end += width;
    return end;
  }

  // 4:  ?[^\s\p{L}\p{N}]+[\r\n/]*
  const symbols = units[start] === 0x20 ? second : start;
  let end = symbols;
  while (end < length && isSymbol(flagsAt(units, length, end))) end += width;
  if (end > symbols) {
    while (end < length) {
      const code = units[end]!;
      if (code !== 0x0a && code !== 0x0d && code !== 0x2f) break;
      end++;
    }
    return end;
  }

  if (!(first & SPACE)) return -1;
  // 5: \s*[\r\n]+ ends after the last line break of the whitespace run.
  let run = start;
  let afterBreak = -1;
  while (run < length) {
    const flags = flagsAt(units, length, run);
    if (!(flags & SPACE)) break;
    run += width;
    if (flags & NEWLINE) afterBreak = run;
  }
  if (afterBreak >= 0) return afterBreak;
  // 6: \s+(?!\S) leaves the run's last character to the piece after it; 7: \s+.
  if (run === length || run === second) return run;
  return run - 1; // whitespace is in the BMP
}

/**
 * [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]* then [\p{Ll}\p{Lm}\p{Lo}\p{M}]+ (alternative 1), or with
 * `upperFirst` [...]+ then [...]* (alternative 2), then an optional contraction, from `from`.
 */
function upperLower(units: Uint16Array, length: number, from: number, upperFirst: boolean): number {
  let index = from;
  // The greedy upper run, and the start of the last character in it that is also lower.
  let lastLower = -1;
  let flags = 0;
  while (index < length) {
    flags = flagsAt(units, length, index);
    if (!(flags & UPPER)) break;
    if (flags & LOWER) lastLower = index;
    index += width;
  }
  let end: number;
  if (upperFirst) {
    if (index === from) return -1;
    end = lowerRun(units, length, index);
  } else if (index < length && flags & LOWER) {
    end = lowerRun(units, length, index);
  } else if (lastLower >= 0) {
    // Backtracking: the upper run gives up its last lower character to the lower run, which
    // cannot continue past it (the characters after it in the run are not lower).
    flagsAt(units, length, lastLower);
    end = lastLower + width;
  } else {
    return -1;
  }
  return end + contraction(units, length, end);
}

function lowerRun(units: Uint16Array, length: number, from: number): number {
  let index = from;
  while (index < length && flagsAt(units, length, index) & LOWER) index += width;
  return index;
}

/** Length of the contraction ('s 't 're 've 'm 'll 'd, any case) at `index`, or 0. */
function contraction(units: Uint16Array, length: number, index: number): number {
  if (index + 1 >= length || units[index] !== 0x27) return 0;
  const one = units[index + 1]! | 0x20;
  if (one === 0x73 || one === 0x74 || one === 0x6d || one === 0x64) return 2; // s t m d
  if (index + 2 >= length) return 0;
  const two = units[index + 2]! | 0x20;
  if ((one === 0x72 || one === 0x76) && two === 0x65) return 3; // re ve
  if (one === 0x6c && two === 0x6c) return 3; // ll
  return 0;
}
