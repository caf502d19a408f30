import { CONFUSABLE_TO_LATIN } from "./confusables.js";

/**
 * What every string fact goes through before a rule looks at it: Unicode NFKC (fullwidth
 * `ＦＲ` is `FR`, `ﬁ` is `fi`), then removal of default-ignorable code points (zero-width
 * spaces and joiners, soft hyphens, byte-order marks, bidi controls, tag characters), which
 * render as nothing and so cannot be part of what a person reads.
 */
export function normalizedText(value: string): string {
  if (PRINTABLE_ASCII.test(value)) return value;
  return value.normalize("NFKC").replace(IGNORABLE, "");
}

// Printable ASCII is its own NFKC form, holds no ignorable code point, no confusable and one script.
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this finds.
const CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/u;

/** True when the text holds a control character other than white space (which trimming handles). */
export function hasControlCharacter(value: string): boolean {
  return CONTROL.test(value);
}

const SCRIPTS: readonly (readonly [string, RegExp])[] = [
  ["Latin", /\p{Script=Latin}/u],
  ["Cyrillic", /\p{Script=Cyrillic}/u],
  ["Greek", /\p{Script=Greek}/u],
  ["Armenian", /\p{Script=Armenian}/u],
  ["Georgian", /\p{Script=Georgian}/u],
  ["Cherokee", /\p{Script=Cherokee}/u],
  ["Hebrew", /\p{Script=Hebrew}/u],
  ["Arabic", /\p{Script=Arabic}/u],
  ["Devanagari", /\p{Script=Devanagari}/u],
  ["Thai", /\p{Script=Thai}/u],
  ["Hangul", /\p{Script=Hangul}/u],
  ["Han", /\p{Script=Han}/u],
  ["Hiragana", /\p{Script=Hiragana}/u],
  ["Katakana", /\p{Script=Katakana}/u],
];
// Scripts written together in one word: Japanese (Han with kana) and Korean (Han with Hangul).
const CJK = new Set(["Han", "Hiragana", "Katakana", "Hangul"]);
const LETTER = /\p{L}/u;
const FIRST_LETTER = /\p{L}/u;
const CJK_WORD = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\P{L}]*$/u;
const WHOLE_WORD: ReadonlyMap<string, RegExp> = new Map(
  SCRIPTS.map(([name]) => [name, CJK.has(name) ? CJK_WORD : new RegExp(`^[\\p{Script=${name}}\\P{L}]*$`, "u")]),
);
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

function scriptOf(letter: string): string {
  for (const [name, pattern] of SCRIPTS) if (pattern.test(letter)) return name;
  // A script not listed: distinct from every listed one, and from other unlisted letters' blocks.
  return `U+${(letter.codePointAt(0)! >> 7).toString(16)}`;
}

/**
 * True when one word of the text (a run of letters, marks and digits) mixes letters of more
 * than one script, as `pаypal` with a Cyrillic `а` does. Words are judged apart, so a
 * Cyrillic channel name behind a Latin scheme (`channel:новости`) is not mixed; Han with kana
 * or Hangul in one word is one writing system.
 */
export function isMixedScript(value: string): boolean {
  if (PRINTABLE_ASCII.test(value)) return false;
  for (const [word] of value.matchAll(WORD)) {
    const letter = FIRST_LETTER.exec(word)?.[0];
    if (letter === undefined) continue;
    // The common case in one native pass: every letter of the word in the first letter's script.
    const whole = WHOLE_WORD.get(scriptOf(letter));
    if (whole !== undefined) {
      if (!whole.test(word)) return true;
      continue;
    }
    let first: string | undefined;
    for (const char of word) {
      if (!LETTER.test(char)) continue;
      const script = scriptOf(char);
      if (first === undefined) first = script;
      else if (script !== first && !(CJK.has(script) && CJK.has(first))) return true;
    }
  }
  return false;
}

/**
 * What a value looks like rather than what it is, for deny rules: normalized, without
 * accents and other combining marks, with confusable letters of other scripts replaced by
 * the Latin letters they imitate, without white space or control characters, in lower case.
 * Two values with one skeleton are hard for a person to tell apart; a deny rule that matches
 * one is made to match the other.
 */
export function skeletonOf(value: string): string {
  if (PRINTABLE_ASCII.test(value)) return value.replace(/ /g, "").toLowerCase();
  let out = "";
  for (const char of normalizedText(value).normalize("NFD")) {
    if (MARK_OR_SPACE.test(char)) continue;
    out += CONFUSABLE_TO_LATIN.get(char) ?? char;
  }
  return out.normalize("NFKC").toLowerCase();
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are dropped from a skeleton.
const MARK_OR_SPACE = /[\p{M}\s\u0000-\u001f\u007f-\u009f]/u;
