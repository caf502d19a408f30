import type { RunResult, WaitingRunResult } from "../run-result.js";
import type { RunStreamPart } from "./stream-parts.js";

/** What a stream adds to a start's or resume's options. */
export interface StreamOptions {
  /**
   * Deltas held for a consumer that has not read them; past this, deltas are dropped (a
   * `dropped` part counts them) and the run never waits for its reader. Durable parts are
   * never dropped: they are read from the journal. Default 1024.
   */
  maxBufferedDeltas?: number;
}

/**
 * A run's live output: iterate it (`for await`) for its parts as they arrive (see
 * `RunStreamPart`), or await `result`. One consumer per stream.
 *
 * Breaking out of the loop (or `return()` on the iterator) only detaches: the run goes on to
 * its next wait or outcome, and its journal keeps every durable step, because a reader that
 * goes away (a closed browser tab, a dropped connection) must not decide the run's fate.
 * To stop the run, call `cancel(reason)` or abort the `signal` given in the options.
 */
export interface RunStream<Output = unknown> extends AsyncIterable<RunStreamPart> {
  readonly runId: string;
  /** What `start` / `resume` return (or reject with). Resolves whether or not anyone iterates. */
  readonly result: Promise<RunResult<Output> | WaitingRunResult>;
  /**
   * Cancels the run as `harness.interrupt(runId, { cancel: reason })` does: it ends
   * `cancelled` at its next safe point, a model call in flight cut short. Before the run's
   * first append, the start is aborted instead. A finished run is left as it is.
   */
  cancel(reason?: string): Promise<void>;
  /** Deltas this consumer lost to a full buffer, so far. */
  readonly dropped: number;
}
