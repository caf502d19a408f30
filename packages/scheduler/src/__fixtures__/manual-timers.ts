// Timers that fire only when a test says so: deadlines without wall-clock sleeps.
import type { Timers } from "../execute-batch.js";

export interface ManualTimers extends Timers {
  /** Fires every armed timer whose delay is at most `ms` (all of them by default). */
  fire(ms?: number): void;
  readonly armed: number;
}

export function manualTimers(): ManualTimers {
  const pending = new Map<number, { callback: () => void; ms: number }>();
  let next = 0;
  return {
    setTimeout(callback, ms) {
      next += 1;
      pending.set(next, { callback, ms });
      return next;
    },
    clearTimeout(handle) {
      pending.delete(handle as number);
    },
    fire(ms = Number.POSITIVE_INFINITY) {
      for (const [handle, timer] of [...pending]) {
        if (timer.ms <= ms) {
          pending.delete(handle);
          timer.callback();
        }
      }
    },
    get armed() {
      return pending.size;
    },
  };
}

/** Timers that never fire. */
export const neverTimers: Timers = { setTimeout: () => 0, clearTimeout: () => undefined };
