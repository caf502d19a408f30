// Where the replay server cuts a body into separately flushed writes: a pure function of the
// bytes and a seed, so a failing split pattern is reproduced by its seed alone.

const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const CHUNK_LIMITS = [2, 8, 32, 128, 512] as const;

/**
 * A deterministic 32-bit generator (a Weyl sequence through a murmur3-style finalizer): the
 * same seed always gives the same numbers, on every platform.
 *
 * @example
 * ```ts
 * const next = seededRandom(42);
 * const die = 1 + (next() % 6); // the same roll on every run
 * ```
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 16), 0x85ebca6b);
    value = Math.imul(value ^ (value >>> 13), 0xc2b2ae35);
    return (value ^ (value >>> 16)) >>> 0;
  };
}

/**
 * The seed of the `index`-th body (0-based) a server created with `{ seed }` splits.
 *
 * @example
 * ```ts
 * // Where the second response of a server with seed 3 was cut:
 * replaySplitOffsets(recordedBytes, exchangeSeed(3, 1)); // equals server.requests[1].splitAt
 * ```
 */
export function exchangeSeed(seed: number, index: number): number {
  return seededRandom((seed ^ Math.imul(index + 1, 0x27d4eb2d)) >>> 0)();
}

/**
 * The byte offsets (strictly increasing, each inside `(0, bytes.length)`) at which a body is
 * split into separate writes for `seed`. Chunk sizes are random up to a per-seed limit (2 to
 * 512 bytes), and every offset a parser is most likely to get wrong — inside a multi-byte
 * UTF-8 character, between the two line breaks of an event separator (`\n|\n`,
 * `\r\n|\r\n`), between a carriage return and its line feed — is added with probability
 * one half.
 *
 * @example
 * ```ts
 * const body = new TextEncoder().encode("data: é\n\n");
 * replaySplitOffsets(body, 7); // [3, 7] on every run: 7 falls inside "é"
 * ```
 */
export function replaySplitOffsets(bytes: Uint8Array, seed: number): number[] {
  const next = seededRandom(seed);
  const limit = CHUNK_LIMITS[next() % CHUNK_LIMITS.length]!;
  const offsets = new Set<number>();
  for (let offset = 1 + (next() % limit); offset < bytes.length; offset += 1 + (next() % limit)) offsets.add(offset);
  for (let offset = 1; offset < bytes.length; offset++) {
    if (isTrickyOffset(bytes, offset) && next() % 2 === 0) offsets.add(offset);
  }
  return [...offsets].sort((a, b) => a - b);
}

/**
 * True when cutting `bytes` at `offset` splits a UTF-8 character or falls between two line
 * breaks (`\n|\n`, `\r|\n`, `\n|\r`).
 *
 * @example
 * ```ts
 * const bytes = new TextEncoder().encode("é\n\n");
 * isTrickyOffset(bytes, 1); // true: inside "é"
 * isTrickyOffset(bytes, 3); // true: between the two newlines
 * ```
 */
export function isTrickyOffset(bytes: Uint8Array, offset: number): boolean {
  const after = bytes[offset]!;
  const before = bytes[offset - 1]!;
  if ((after & 0xc0) === 0x80) return true;
  if (after === LINE_FEED) return before === LINE_FEED || before === CARRIAGE_RETURN;
  return after === CARRIAGE_RETURN && before === LINE_FEED;
}
