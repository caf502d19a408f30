import { readYokeEvents, type RunScope } from "@yoke/protocol";
import type { HarnessDeps } from "../run-context.js";
import { DeltaBuffer } from "./delta-buffer.js";
import { DurableParts } from "./durable-parts.js";
import type { RunTap } from "./run-taps.js";
import type { RunStreamDelta, RunStreamEnd, RunStreamPart } from "./stream-parts.js";

/** Events read from the journal at once while catching up. */
const PAGE = 256;

/**
 * One consumer's view of a run: the durable parts read from the journal up to what is known
 * durable, with the deltas interleaved where they arrived (a delta comes after every event that
 * was durable when it arrived), then the end part once the call driving the run settled.
 *
 * The journal is read only as the consumer pulls, so a consumer that never reads costs the run
 * nothing but the bounded delta buffer; and a stream that starts late (a resume, a reattach)
 * replays the run from its first event, then continues live: the replay ends where the live
 * part begins, by seq, so nothing is missed or repeated at the seam.
 */
export class FollowedRun implements RunTap, AsyncIterator<RunStreamPart> {
  private known = 0;
  private cursor = 0;
  private readonly buffer: DeltaBuffer;
  private readonly parts = new DurableParts();
  private page: RunStreamPart[] = [];
  private pageIndex = 0;
  private wake: (() => void) | undefined;
  private settled: RunStreamEnd | undefined;
  private done = false;
  private detachTap: () => void = () => {};
  private headPending: boolean;
  private finalHead: boolean;

  /**
   * `readHead`: whether the journal may hold events of the run this process did not append
   * (a resume, a reattach); then the journal's head is read before waiting, and again once
   * the driving call settled. A new run's stream never reads it: every event of the run is
   * an append this harness tells it about.
   */
  constructor(
    private readonly deps: HarnessDeps,
    private readonly scope: RunScope,
    readHead: boolean,
    maxBufferedDeltas: number,
  ) {
    this.buffer = new DeltaBuffer(maxBufferedDeltas);
    this.headPending = readHead;
    this.finalHead = readHead;
  }

  /** Called once, with what detaches this view from the run's taps. */
  attached(detach: () => void): void {
    this.detachTap = detach;
  }

  /** How many deltas this consumer lost to a full buffer. */
  get dropped(): number {
    return this.buffer.dropped;
  }

  /** Whether run.started (or any event) is known to be durable. */
  get started(): boolean {
    return this.known > 0;
  }

  durable(length: number): void {
    if (length <= this.known) return;
    this.known = length;
    this.notify();
  }

  delta(part: RunStreamDelta): void {
    if (this.done || this.settled !== undefined) return;
    this.buffer.push(this.known, part);
    this.notify();
  }

  /** The driving call settled: nothing more is appended for this stream. */
  settle(end: RunStreamEnd): void {
    this.settled = end;
    this.detachTap();
    this.notify();
  }

  async next(): Promise<IteratorResult<RunStreamPart>> {
    for (;;) {
      if (this.done) return { done: true, value: undefined };
      if (this.pageIndex < this.page.length) return { done: false, value: this.page[this.pageIndex++]! };
      const delta = this.buffer.peek();
      if (delta !== undefined && delta.after <= this.cursor) {
        this.buffer.take();
        return { done: false, value: delta.part };
      }
      if (this.headPending) this.headPending = !(await this.readJournalHead()) && this.settled === undefined;
      if (this.cursor < this.known) {
        const failed = await this.readPage(delta?.after);
        if (failed !== undefined) return this.finish(failed);
        continue;
      }
      if (this.settled !== undefined) {
        // Once more after the drive: what it appended before this stream heard of it.
        if (this.finalHead) {
          this.finalHead = false;
          this.headPending = true;
          continue;
        }
        return this.finish(this.settled);
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  /** Detaches: the consumer stops reading; the run goes on (see `RunStream`). */
  async return(): Promise<IteratorResult<RunStreamPart>> {
    this.done = true;
    this.detachTap();
    this.notify();
    return { done: true, value: undefined };
  }

  private finish(end: RunStreamEnd): IteratorResult<RunStreamPart> {
    this.done = true;
    this.detachTap();
    return { done: false, value: end };
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** True once read; false when the journal cannot say yet (a path journal the drive has not opened). */
  private async readJournalHead(): Promise<boolean> {
    try {
      const head = await this.deps.journal.head(this.scope);
      if (head !== null && head.length > this.known) this.known = head.length;
      return true;
    } catch {
      return false;
    }
  }

  /** Reads the next events up to what is known durable (and before `before`, a delta's place); an error ends the stream. */
  private async readPage(before: number | undefined): Promise<RunStreamEnd | undefined> {
    const toSeq = Math.min(this.known, before ?? Number.POSITIVE_INFINITY, this.cursor + PAGE);
    const page: RunStreamPart[] = [];
    try {
      for await (const event of readYokeEvents(this.deps.journal, this.scope, { fromSeq: this.cursor, toSeq })) page.push(...this.parts.of(event));
    } catch (error) {
      return { type: "error", error };
    }
    this.cursor = toSeq;
    this.page = page;
    this.pageIndex = 0;
    return undefined;
  }
}
