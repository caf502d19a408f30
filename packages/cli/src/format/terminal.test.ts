// escapeTerminal is the one gate between journal contents and a terminal: whatever the input,
// no control, DEL, C1 or bidi character comes out, a line stays one line, and text without
// them is printed unchanged.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeTerminal, firstUnsafe, terminalLines, unsafe } from "./terminal.js";

// Strings rich in what the gate must stop: every C0, DEL, C1 and bidi code point, mixed with any text.
const dangerous = fc.constantFrom(
  ...Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)),
  ...Array.from({ length: 0x21 }, (_, index) => String.fromCharCode(0x7f + index)),
  "\u061c",
  "\u200e",
  "\u200f",
  "\u2028",
  "\u2029",
  "\u202a",
  "\u202b",
  "\u202c",
  "\u202d",
  "\u202e",
  "\u2066",
  "\u2067",
  "\u2068",
  "\u2069",
);
const text = fc.array(fc.oneof(fc.string({ unit: "binary" }), dangerous)).map((parts) => parts.join(""));

describe("escapeTerminal", () => {
  it("lets no unsafe character through, is idempotent, and keeps safe text as it is", () => {
    fc.assert(
      fc.property(text, (value) => {
        const escaped = escapeTerminal(value);
        expect(firstUnsafe(escaped)).toBe(-1);
        expect(escapeTerminal(escaped)).toBe(escaped);
        if (firstUnsafe(value) === -1) expect(escaped).toBe(value);
      }),
      { numRuns: 500 },
    );
  });

  it("each value is one line: terminalLines writes exactly as many newlines as it was given lines", () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 8 }), (lines) => {
        const written = terminalLines(lines);
        expect(written.split("\n")).toHaveLength(lines.length + 1);
        for (let index = 0; index < written.length; index++) {
          const code = written.charCodeAt(index);
          if (code !== 0x0a) expect(unsafe(code)).toBe(false);
        }
      }),
    );
  });

  it("shows escapes people can read", () => {
    expect(escapeTerminal("a\u001b[2Jb\nc\td\re\u009b\u202ef\u0000")).toBe("a\\x1b[2Jb\\nc\\td\\re\\x9b\\u202ef\\x00");
  });
});
