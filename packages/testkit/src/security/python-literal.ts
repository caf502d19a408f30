import type { JsonValue } from "@yoke/protocol";
import type { JsonObject } from "./types.js";

/*
 * A reader for the Python literals `ast.literal_eval` accepts that have a JSON form: lists
 * and tuples (as arrays), dicts with string keys, strings (quotes, triple quotes, r/u
 * prefixes, escapes, adjacent literals joined), numbers, True, False and None. Anything
 * else (sets, bytes, complex numbers, names, calls) is not a literal this reader returns.
 */

class NotALiteral extends Error {}

const ESCAPES: Record<string, string> = { "\\": "\\", "'": "'", '"': '"', n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", f: "\f", v: "\v", "\n": "" };

class Reader {
  at = 0;
  constructor(readonly text: string) {}

  fail(): never {
    throw new NotALiteral();
  }

  skip(): void {
    while (this.at < this.text.length && /\s/.test(this.text[this.at]!)) this.at += 1;
  }

  peek(): string {
    this.skip();
    return this.text[this.at] ?? "";
  }

  /** Whether a string literal (with an optional r/u prefix) starts at the next non-blank character. */
  startsString(): boolean {
    this.skip();
    return /^[rRuU]?['"]/.test(this.text.slice(this.at));
  }

  value(): JsonValue {
    const char = this.peek();
    if (char === "[") return this.sequence("[", "]");
    if (char === "(") return this.tuple();
    if (char === "{") return this.dict();
    if (/[-+0-9.]/.test(char)) return this.number();
    if (this.startsString()) return this.strings();
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.text.slice(this.at))?.[0] ?? "";
    this.at += word.length;
    if (word === "True") return true;
    if (word === "False") return false;
    if (word === "None") return null;
    return this.fail();
  }

  sequence(open: string, close: string): JsonValue[] {
    this.at += open.length;
    const items: JsonValue[] = [];
    while (this.peek() !== close) {
      items.push(this.value());
      if (this.peek() === ",") this.at += 1;
      else if (this.peek() !== close) this.fail();
    }
    this.at += 1;
    return items;
  }

  tuple(): JsonValue {
    this.at += 1;
    if (this.peek() === ")") {
      this.at += 1;
      return [];
    }
    const first = this.value();
    if (this.peek() === ")") {
      this.at += 1;
      return first;
    }
    if (this.peek() !== ",") this.fail();
    this.at += 1;
    const rest = this.sequence("", ")");
    return [first, ...rest];
  }

  dict(): JsonObject {
    this.at += 1;
    const out: JsonObject = {};
    while (this.peek() !== "}") {
      const key = this.value();
      if (typeof key !== "string" || this.peek() !== ":") this.fail();
      this.at += 1;
      out[key] = this.value();
      if (this.peek() === ",") this.at += 1;
      else if (this.peek() !== "}") this.fail();
    }
    this.at += 1;
    return out;
  }

  number(): number {
    const match = /^[-+]?\s*(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][-+]?\d[\d_]*)?)(?![jJ\w])/.exec(
      this.text.slice(this.at),
    );
    if (match === null) return this.fail();
    this.at += match[0].length;
    const text = match[0].replace(/[\s_]/g, "");
    const sign = text.startsWith("-") ? -1 : 1;
    const body = text.replace(/^[-+]/, "");
    const radix = /^0[xX]/.test(body) ? 16 : /^0[oO]/.test(body) ? 8 : /^0[bB]/.test(body) ? 2 : 10;
    const value = radix === 10 ? Number(body) : Number.parseInt(body.slice(2), radix);
    return Number.isNaN(value) ? this.fail() : sign * value;
  }

  /** One or more adjacent string literals, joined. */
  strings(): string {
    let out = this.string();
    while (this.startsString()) out += this.string();
    return out;
  }

  string(): string {
    const prefix = /^[rRuU]?/.exec(this.text.slice(this.at))![0];
    const raw = /[rR]/.test(prefix);
    this.at += prefix.length;
    const quote = this.text.startsWith(this.text[this.at]!.repeat(3), this.at) ? this.text[this.at]!.repeat(3) : this.text[this.at]!;
    this.at += quote.length;
    let out = "";
    while (!this.text.startsWith(quote, this.at)) {
      const char = this.text[this.at];
      if (char === undefined || (quote.length === 1 && char === "\n")) this.fail();
      if (char !== "\\") {
        out += char;
        this.at += 1;
        continue;
      }
      const next = this.text[this.at + 1] ?? this.fail();
      if (raw) {
        out += char + next;
        this.at += 2;
      } else {
        this.at += 2;
        out += this.escape(next);
      }
    }
    this.at += quote.length;
    return out;
  }

  escape(next: string): string {
    if (Object.hasOwn(ESCAPES, next)) return ESCAPES[next]!;
    const hex = (length: number) => {
      const digits = this.text.slice(this.at, this.at + length);
      if (!new RegExp(`^[0-9a-fA-F]{${length}}$`).test(digits)) this.fail();
      this.at += length;
      return String.fromCodePoint(Number.parseInt(digits, 16));
    };
    if (next === "x") return hex(2);
    if (next === "u") return hex(4);
    if (next === "U") return hex(8);
    if (/[0-7]/.test(next)) {
      const digits = next + (/^[0-7]{0,2}/.exec(this.text.slice(this.at))?.[0] ?? "");
      this.at += digits.length - 1;
      return String.fromCodePoint(Number.parseInt(digits, 8));
    }
    // An unknown escape keeps its backslash, as Python does.
    return `\\${next}`;
  }
}

/**
 * The list a string spells as a Python list literal (`"['a', 'b']"` → `["a", "b"]`), or
 * undefined when it is not one (`ast.literal_eval` fails, or gives something else than a list).
 *
 * @example
 * ```ts
 * parsePythonList("['emma@x.com', \"b@y.com\"]"); // ["emma@x.com", "b@y.com"]
 * parsePythonList("hello"); // undefined
 * ```
 */
export function parsePythonList(text: string): JsonValue[] | undefined {
  // literal_eval strips leading spaces and tabs only; a leading newline is a syntax error.
  const reader = new Reader(text.replace(/^[ \t]+/, ""));
  if (reader.text[0] !== "[") return undefined;
  try {
    const value = reader.value();
    reader.skip();
    return reader.at === reader.text.length && Array.isArray(value) ? value : undefined;
  } catch (error) {
    if (error instanceof NotALiteral) return undefined;
    throw error;
  }
}
