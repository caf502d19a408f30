/**
 * Text for a terminal. Journal contents (tool errors, tasks, tenant and run ids) are written
 * by whoever fed the run, so none of their characters may act on the terminal: every control
 * character is shown as an escape instead of being written.
 *
 * Escaped: C0 controls (U+0000–U+001F, newline, tab and carriage return included: inside a
 * value they would forge a line or redraw one), DEL and the C1 controls (U+007F–U+009F; U+009B
 * is CSI on terminals that read 8-bit controls), the bidi embeddings, overrides and isolates
 * (U+202A–U+202E, U+2066–U+2069) and marks (U+200E, U+200F, U+061C), which reorder what is
 * shown without changing what is stored, and the line and paragraph separators U+2028/U+2029.
 * The CLI's own layout is the newline between lines, written by {@link terminalLines} only.
 */
export function escapeTerminal(text: string): string {
  let out = "";
  let from = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (!unsafe(code)) continue;
    out += text.slice(from, index) + escapeOf(code);
    from = index + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** The index of the first character of `text` that {@link escapeTerminal} escapes, or -1. */
export function firstUnsafe(text: string): number {
  for (let index = 0; index < text.length; index++) if (unsafe(text.charCodeAt(index))) return index;
  return -1;
}

/** Whether the UTF-16 code unit `code` is one {@link escapeTerminal} escapes. */
export function unsafe(code: number): boolean {
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  if (code < 0x61c) return false;
  return (
    code === 0x61c ||
    code === 0x200e ||
    code === 0x200f ||
    code === 0x2028 ||
    code === 0x2029 ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

const NAMED: Readonly<Record<number, string>> = { 9: "\\t", 10: "\\n", 13: "\\r" };

function escapeOf(code: number): string {
  const named = NAMED[code];
  if (named !== undefined) return named;
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** `lines` as terminal text: each line escaped whole (a newline inside one is shown as `\n`), joined and ended by newlines. */
export function terminalLines(lines: readonly string[]): string {
  let text = "";
  for (const line of lines) text += `${escapeTerminal(line)}\n`;
  return text;
}
