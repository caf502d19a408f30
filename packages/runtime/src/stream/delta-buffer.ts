import type { RunStreamDelta } from "./stream-parts.js";

/** How many deltas a stream holds for a consumer that has not read them, by default. */
export const DEFAULT_MAX_BUFFERED_DELTAS = 1024;

/** A delta, and the journal length when it arrived: it comes after every event below that seq. */
export interface BufferedDelta {
  readonly after: number;
  readonly part: RunStreamDelta;
}

/**
 * The deltas a consumer has not read yet, at most `max` of them. Past that, a new delta is
 * dropped, never waited for (the run is never held back by its reader): consecutive drops
 * become one `dropped` part counting them, in the place they would have had. Memory stays
 * bounded (at most `max` deltas and one `dropped` part after each) however long nobody reads.
 */
export class DeltaBuffer {
  private readonly entries: BufferedDelta[] = [];
  private head = 0;
  private retained = 0;
  /** Every delta dropped so far. */
  dropped = 0;

  constructor(private readonly max: number) {}

  push(after: number, part: RunStreamDelta): void {
    if (this.retained < this.max) {
      this.entries.push({ after, part });
      this.retained++;
      return;
    }
    this.dropped++;
    const last = this.entries.length > this.head ? this.entries[this.entries.length - 1] : undefined;
    if (last?.part.type === "dropped") {
      this.entries[this.entries.length - 1] = { after: last.after, part: { type: "dropped", count: last.part.count + 1 } };
    } else {
      this.entries.push({ after, part: { type: "dropped", count: 1 } });
    }
  }

  /** The oldest unread delta, without taking it. */
  peek(): BufferedDelta | undefined {
    return this.entries[this.head];
  }

  take(): BufferedDelta | undefined {
    const next = this.entries[this.head];
    if (next === undefined) return undefined;
    this.head++;
    if (next.part.type !== "dropped") this.retained--;
    // Compacted now and then, so a long stream does not keep what its consumer read.
    if (this.head > 64 && this.head * 2 > this.entries.length) {
      this.entries.splice(0, this.head);
      this.head = 0;
    }
    return next;
  }

  get size(): number {
    return this.entries.length - this.head;
  }
}
