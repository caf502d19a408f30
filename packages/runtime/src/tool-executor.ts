import { executeBatch, type AttemptOutcome, type DispatchItem, type Timers } from "@yoke/scheduler";
import type { Clock } from "@yoke/protocol";

export { errorEnvelope } from "@yoke/scheduler/internal";

/**
 * The one seam through which the loop runs tools: a batch of leased attempts (their
 * executing already durable) in proposal order in, one outcome per attempt in the
 * same order out. It never rejects. The default is `@yoke/scheduler`'s conflict-aware
 * `executeBatch`.
 */
export interface ExecuteAllOptions {
  /** The fencing token of the run's lease: every handler gets it as `context.fencingToken`. */
  readonly fencingToken?: number;
}

export interface ToolExecutor {
  executeAll(items: readonly DispatchItem[], signal: AbortSignal | undefined, options?: ExecuteAllOptions): Promise<AttemptOutcome[]>;
}

/**
 * The scheduler's executor: conflicting calls in proposal order, the rest at once (at most
 * `maxConcurrent` handlers at a time), deadlines on `timers`.
 */
export function createToolExecutor(options: { clock: Clock; timers?: Timers | undefined; maxConcurrent?: number | undefined }): ToolExecutor {
  return {
    executeAll: (items, signal, run) =>
      executeBatch(items, {
        clock: options.clock,
        signal,
        maxConcurrent: options.maxConcurrent,
        ...(options.timers ? { timers: options.timers } : {}),
        ...(run?.fencingToken === undefined ? {} : { fencingToken: run.fencingToken }),
      }),
  };
}
