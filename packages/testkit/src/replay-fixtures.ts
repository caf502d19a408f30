import { readFileSync } from "node:fs";
import { join } from "node:path";
import { YokeError } from "@yoke/protocol";
import type { ReplayExchange } from "./replay-server.js";

/**
 * Reads one recorded exchange from a fixtures folder, keeping the recorded bytes:
 *
 * - `<name>.sse`: a server-sent-event stream served with status 200, its bytes exactly as in
 *   the file (`sse` is a `Uint8Array`).
 * - `<name>.json`: a whole exchange (`{ status, headers, body }`, `{ status, headers, rawBody }`
 *   or `{ sse }`). A `body` is served as the exact text of its value in the file — key order,
 *   whitespace, `\u` escapes and number spelling as written — in `rawBody`; `body` keeps the
 *   parsed value for your assertions.
 *
 * `overrides` adds `cut`, `destroyAfter`, `hang`, `splitAt`, `path`, …; overriding `body`,
 * `rawBody` or `sse` replaces the recorded body.
 *
 * @example
 * ```ts
 * const fixtures = new URL("./__fixtures__/", import.meta.url).pathname;
 * server.enqueue(readReplayFixture(fixtures, "text.sse"), readReplayFixture(fixtures, "error-429.json"));
 * server.enqueue(readReplayFixture(fixtures, "stream-cut.sse", { cut: true }));
 * ```
 */
export function readReplayFixture(dir: string, file: string, overrides: Partial<ReplayExchange> = {}): ReplayExchange {
  const bytes = readFileSync(join(dir, file));
  if (file.endsWith(".sse")) return { sse: new Uint8Array(bytes), ...overrides };
  if (!file.endsWith(".json")) {
    throw new YokeError("CONFIG_INVALID", `a replay fixture is a .sse or .json file, not ${file}`, { details: { file } });
  }
  const exchange = JSON.parse(utf8.decode(bytes)) as ReplayExchange;
  const replacesBody = overrides.body !== undefined || overrides.rawBody !== undefined || overrides.sse !== undefined;
  if (exchange.body !== undefined && exchange.rawBody === undefined && exchange.sse === undefined && !replacesBody) {
    const span = topLevelValueSpan(bytes, "body");
    if (span !== undefined) return { ...exchange, rawBody: new Uint8Array(bytes.subarray(span[0], span[1])), ...overrides };
  }
  if (replacesBody) {
    const { body: _body, rawBody: _rawBody, sse: _sse, ...rest } = exchange;
    return { ...rest, ...overrides };
  }
  return { ...exchange, ...overrides };
}

const utf8 = new TextDecoder();
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isWhitespace = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;

/**
 * The `[start, end)` byte span of the value of `key` in a JSON object text (the last one, as
 * `JSON.parse` keeps it). Structural characters are ASCII, so scanning bytes is exact for
 * UTF-8 text. Assumes valid JSON (the caller parsed it first).
 */
function topLevelValueSpan(bytes: Uint8Array, key: string): [number, number] | undefined {
  let index = skipWhitespace(bytes, 0);
  if (bytes[index] !== 0x7b) return undefined;
  index++;
  let found: [number, number] | undefined;
  for (;;) {
    index = skipWhitespace(bytes, index);
    if (bytes[index] === 0x7d || index >= bytes.length) return found;
    const keyEnd = skipValue(bytes, index);
    const name = JSON.parse(utf8.decode(bytes.subarray(index, keyEnd))) as string;
    index = skipWhitespace(bytes, keyEnd) + 1; // the colon
    const start = skipWhitespace(bytes, index);
    const end = skipValue(bytes, start);
    if (name === key) found = [start, end];
    index = skipWhitespace(bytes, end);
    if (bytes[index] === 0x2c) index++;
  }
}

function skipWhitespace(bytes: Uint8Array, index: number): number {
  while (index < bytes.length && isWhitespace(bytes[index]!)) index++;
  return index;
}

function skipValue(bytes: Uint8Array, index: number): number {
  const first = bytes[index];
  if (first === QUOTE) {
    for (index++; index < bytes.length; index++) {
      if (bytes[index] === BACKSLASH) index++;
      else if (bytes[index] === QUOTE) return index + 1;
    }
    return index;
  }
  if (first === 0x7b || first === 0x5b) {
    let depth = 0;
    while (index < bytes.length) {
      const byte = bytes[index]!;
      if (byte === QUOTE) {
        index = skipValue(bytes, index);
        continue;
      }
      if (byte === 0x7b || byte === 0x5b) depth++;
      else if (byte === 0x7d || byte === 0x5d) depth--;
      index++;
      if (depth === 0) return index;
    }
    return index;
  }
  while (index < bytes.length && !isWhitespace(bytes[index]!) && bytes[index] !== 0x2c && bytes[index] !== 0x7d && bytes[index] !== 0x5d) index++;
  return index;
}
