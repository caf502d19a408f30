// Text for the tokenizer property tests.
import fc from "fast-check";

/** Fragments where regex pieces meet: contractions, case changes, digits, whitespace, specials. */
const FRAGMENTS = [
  " ", "  ", "   ", "\t", "\n", "\r\n", "\r", "\n\n", " \n", "\u00A0", "\u3000", "\u2028",
  "'s", "'S", "'ll", "'LL", "'re", "'ve", "'d", "'m", "'t", "'", "’s",
  "the", " the", "The", " THE", "HTTPServer", "camelCase", "snake_case", "x", "I", "a",
  "0", "1", "12", "123", "1234", "12345", "3.14", "1,000", "٣", "½", "Ⅻ",
  "{", "}", " {", "};", "()", "=>", "===", "//", "/*", "*/", "...", "--", "->", "::", "<", "/>", "\"", "\\",
  "<|endoftext|>", "<|endofprompt|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|", "|>",
  "é", "e\u0301", "ß", "Ä", "ǅ", "ʰ", "ー", "漢字", "日本語", "한국어", "Ελληνικά", "русский", "عربى", "हिन्दी",
  "😀", "👍🏽", "👨‍👩‍👧", "🇩🇪", "\u200D", "\uFE0F", "\uD83D", "\uDE00", "\u0000", "\u007F", "\uFFFD",
  "\u0301", "\u20DD", "ǈ", "ᾈ", "ÉCOLE", "A\u0301B", "ʰA", "Aʰ", "'Re", "'lL", "'VE", "\r/", "/\n", "\u000B", "\u2029", "\uFEFF", "\u1680",
  "⟦data:0123abcd trust=\"tool_output\" source=\"event:7\"⟧", "⟦/data:0123abcd⟧", "⟦yoke: note⟧",
];

/** One character of each class the split distinguishes (cased and uncased letters, marks, digits, spaces, breaks, symbols). */
const CLASS_CHARS = ["a", "Z", "ǅ", "ʰ", "漢", "\u0301", "1", "٣", " ", "\t", "\n", "\r", "\u00A0", "'", "s", "L", "/", "!", "😀", "𝐀", "𝐚", "\uD800"];
const whitespaceRun = fc.tuple(fc.constantFrom(" ", "\t", "\n", "\r\n", "\u00A0"), fc.integer({ min: 1, max: 80 })).map(([unit, times]) => unit.repeat(times));
/** Text that stresses a tokenizer's split: fragments at piece boundaries, arbitrary code units and graphemes, code. */
export const anyText = fc.oneof(
  fc.array(fc.constantFrom(...CLASS_CHARS), { maxLength: 30 }).map((chars) => chars.join("")),
  fc.array(fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...FRAGMENTS) }, whitespaceRun, fc.string({ maxLength: 6 })), { maxLength: 40 }).map((parts) => parts.join("")),
  fc.string({ unit: "binary", maxLength: 80 }),
  fc.string({ unit: "grapheme", maxLength: 80 }),
  fc.stringMatching(/^[ a-zA-Z0-9_{}()[\];:.,'"=<>/\n\t-]{0,120}$/),
);

