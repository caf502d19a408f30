import { closeSync, openSync, readSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { YokeError } from "@yoke/protocol";

/**
 * What {@link scanExport} finds in a run export, in file order: each element of its `events`
 * array (parsed, with its size in the file), or, for one larger than the caller's bound, only
 * its size; and every other top-level field.
 */
export type ExportItem =
  | { readonly kind: "event"; readonly index: number; readonly value: unknown; readonly bytes: number }
  | { readonly kind: "oversized"; readonly index: number; readonly bytes: number }
  | { readonly kind: "field"; readonly key: string; readonly value: unknown };

/** Bytes read from the file at a time. */
const CHUNK_BYTES = 1 << 20;
/** A top-level field other than `events` (format, version, ids, head) is small: past this it is not an export. */
const MAX_FIELD_UNITS = 1 << 16;

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

function notJson(message: string, offset: number): YokeError {
  return new YokeError("CONFIG_INVALID", `the file is not JSON: ${message} at character ${offset}`, { details: { offset } });
}

/**
 * Reads a run export (a JSON object whose `events` member is an array) from `path` a chunk at
 * a time, yielding each event as soon as it is read, so memory holds one event, never the
 * file. An event whose text is longer than `maxEventUnits` UTF-16 units is not kept: it is
 * skipped and reported with its size in bytes. Malformed JSON is CONFIG_INVALID.
 */
export function* scanExport(path: string, maxEventUnits: number, chunkBytes = CHUNK_BYTES): Generator<ExportItem> {
  const source = new CharSource(path, chunkBytes);
  try {
    source.skipWhitespace();
    source.expect(0x7b);
    source.skipWhitespace();
    if (source.peek() === 0x7d) {
      source.next();
    } else {
      for (;;) {
        const keyText = source.value(MAX_FIELD_UNITS);
        const key = keyText.text === undefined ? undefined : parse(keyText.text, keyText.offset);
        if (typeof key !== "string") throw notJson("an object key must be a string", keyText.offset);
        source.skipWhitespace();
        source.expect(0x3a);
        source.skipWhitespace();
        if (key === "events" && source.peek() === 0x5b) {
          yield* events(source, maxEventUnits);
        } else {
          const field = source.value(MAX_FIELD_UNITS);
          if (field.text === undefined)
            throw new YokeError("CONFIG_INVALID", `the file is not a Yoke run export: its field ${JSON.stringify(key.slice(0, 40))} is too large`);
          yield { kind: "field", key, value: parse(field.text, field.offset) };
        }
        source.skipWhitespace();
        const separator = source.next();
        if (separator === 0x7d) break;
        if (separator !== 0x2c) throw notJson("expected , or }", source.offset - 1);
        source.skipWhitespace();
      }
    }
    source.skipWhitespace();
    if (source.peek() !== undefined) throw notJson("unexpected content after the document", source.offset);
  } finally {
    source.close();
  }
}

function* events(source: CharSource, maxEventUnits: number): Generator<ExportItem> {
  source.expect(0x5b);
  source.skipWhitespace();
  if (source.peek() === 0x5d) {
    source.next();
    return;
  }
  for (let index = 0; ; index++) {
    const element = source.value(maxEventUnits);
    yield element.text === undefined
      ? { kind: "oversized", index, bytes: element.bytes }
      : { kind: "event", index, value: parse(element.text, element.offset), bytes: element.bytes };
    source.skipWhitespace();
    const separator = source.next();
    if (separator === 0x5d) return;
    if (separator !== 0x2c) throw notJson("expected , or ]", source.offset - 1);
    source.skipWhitespace();
  }
}

function parse(text: string, offset: number): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw notJson((error as Error).message, offset);
  }
}

/** The file as characters, decoded a chunk at a time (a UTF-8 sequence split between chunks is kept whole). */
class CharSource {
  private readonly fd: number;
  private readonly decoder = new StringDecoder("utf8");
  private readonly bytes: Buffer;
  private buffer = "";
  private position = 0;
  private consumed = 0;
  private ended = false;

  constructor(path: string, chunkBytes: number) {
    this.bytes = Buffer.allocUnsafe(chunkBytes);
    this.fd = openSync(path, "r");
  }

  /** Characters consumed so far: where an error is. */
  get offset(): number {
    return this.consumed + this.position;
  }

  close(): void {
    closeSync(this.fd);
  }

  /** Whether a character is buffered (reading the next chunk when needed). */
  private fill(): boolean {
    while (this.position >= this.buffer.length) {
      if (this.ended) return false;
      const read = readSync(this.fd, this.bytes, 0, this.bytes.length, null);
      this.consumed += this.buffer.length;
      this.position = 0;
      if (read === 0) {
        this.ended = true;
        this.buffer = this.decoder.end();
      } else {
        this.buffer = this.decoder.write(this.bytes.subarray(0, read));
      }
    }
    return true;
  }

  peek(): number | undefined {
    return this.fill() ? this.buffer.charCodeAt(this.position) : undefined;
  }

  next(): number | undefined {
    if (!this.fill()) return undefined;
    return this.buffer.charCodeAt(this.position++);
  }

  expect(code: number): void {
    const found = this.next();
    if (found !== code) throw notJson(`expected ${String.fromCharCode(code)}`, this.offset - 1);
  }

  skipWhitespace(): void {
    while (this.fill() && WHITESPACE.has(this.buffer.charCodeAt(this.position))) this.position++;
  }

  /**
   * The text of the JSON value that starts here (a string, object, array or literal), and its
   * UTF-8 bytes; `text` is undefined when it is longer than `maxUnits` (its characters are then
   * counted, not kept). Only its extent is found here: JSON.parse checks the text.
   */
  value(maxUnits: number): { text: string | undefined; bytes: number; offset: number } {
    const offset = this.offset;
    const first = this.peek();
    if (first === undefined) throw notJson("unexpected end of the file", offset);
    const literal = first !== 0x22 && first !== 0x7b && first !== 0x5b;
    let depth = 0;
    let inString = false;
    let escaped = false;
    let parts: string[] | undefined = [];
    let units = 0;
    let bytes = 0;
    let done = false;
    while (!done) {
      if (!this.fill()) {
        if (literal) break;
        throw notJson("unexpected end of the file", this.offset);
      }
      const { buffer } = this;
      const start = this.position;
      let index = start;
      for (; index < buffer.length; index++) {
        const code = buffer.charCodeAt(index);
        if (inString) {
          if (escaped) escaped = false;
          else if (code === 0x5c) escaped = true;
          else if (code === 0x22) {
            inString = false;
            if (depth === 0) {
              index++;
              done = true;
              break;
            }
          }
        } else if (literal) {
          if (code === 0x2c || code === 0x7d || code === 0x5d || WHITESPACE.has(code)) {
            done = true;
            break;
          }
        } else if (code === 0x22) {
          inString = true;
        } else if (code === 0x7b || code === 0x5b) {
          depth++;
        } else if (code === 0x7d || code === 0x5d) {
          depth--;
          if (depth <= 0) {
            index++;
            done = true;
            break;
          }
        }
      }
      const slice = buffer.slice(start, index);
      this.position = index;
      units += slice.length;
      bytes += Buffer.byteLength(slice, "utf8");
      if (parts !== undefined) {
        if (units > maxUnits) parts = undefined;
        else parts.push(slice);
      }
    }
    return { text: parts?.join(""), bytes, offset };
  }
}
