/**
 * The last `capacity` bytes of a stream, in a fixed ring: memory stays `capacity` bytes
 * however much the stream writes. `text()` decodes the kept bytes as UTF-8 without a split
 * code point at either end (a partial sequence at the start, where the ring cut, or at the
 * end, where the writer was killed, is dropped and counted as truncated).
 */
export class TailBuffer {
  readonly #ring: Uint8Array;
  #written = 0;

  constructor(readonly capacity: number) {
    this.#ring = new Uint8Array(capacity);
  }

  /** Every byte ever pushed. */
  get totalBytes(): number {
    return this.#written;
  }

  /** The bytes the ring holds now (never more than `capacity`). */
  get retainedBytes(): number {
    return Math.min(this.#written, this.capacity);
  }

  push(chunk: Uint8Array): void {
    const capacity = this.capacity;
    if (capacity === 0) {
      this.#written += chunk.length;
      return;
    }
    // Only the chunk's last `capacity` bytes can survive.
    const from = Math.max(0, chunk.length - capacity);
    let position = (this.#written + from) % capacity;
    let offset = from;
    while (offset < chunk.length) {
      const count = Math.min(chunk.length - offset, capacity - position);
      this.#ring.set(chunk.subarray(offset, offset + count), position);
      offset += count;
      position = (position + count) % capacity;
    }
    this.#written += chunk.length;
  }

  /** The kept bytes, oldest first. */
  bytes(): Uint8Array {
    const kept = this.retainedBytes;
    if (this.#written <= this.capacity) return this.#ring.slice(0, kept);
    const start = this.#written % this.capacity;
    const out = new Uint8Array(kept);
    out.set(this.#ring.subarray(start), 0);
    out.set(this.#ring.subarray(0, start), this.capacity - start);
    return out;
  }

  /** The tail as text, whole code points only, and how many bytes of the stream it leaves out. */
  tail(): { text: string; truncatedBytes: number } {
    const bytes = utf8Whole(this.bytes());
    return { text: new TextDecoder("utf-8").decode(bytes), truncatedBytes: this.#written - bytes.length };
  }
}

const isContinuation = (byte: number): boolean => (byte & 0b1100_0000) === 0b1000_0000;

/** Length of the UTF-8 sequence a lead byte starts (1 for ASCII or a stray byte). */
function sequenceLength(lead: number): number {
  if (lead >= 0b1111_0000) return 4;
  if (lead >= 0b1110_0000) return 3;
  if (lead >= 0b1100_0000) return 2;
  return 1;
}

/** `bytes` without a partial code point at the start (at most 3 continuation bytes) or at the end. */
export function utf8Whole(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.length && start < 3 && isContinuation(bytes[start]!)) start += 1;
  let end = bytes.length;
  // Find the last lead byte among the final 3; drop its sequence if incomplete.
  for (let index = bytes.length - 1; index >= Math.max(start, bytes.length - 4); index -= 1) {
    const byte = bytes[index]!;
    if (isContinuation(byte)) continue;
    if (index + sequenceLength(byte) > bytes.length) end = index;
    break;
  }
  return bytes.subarray(start, end);
}
