import { YokeError, steppingClock, type Clock } from "@yoke/protocol";
import type { SeededRandom } from "./prng.js";

/** Timers in the shape a harness takes (`HarnessOptions.timers`). */
export interface VirtualTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * Time in a simulated world: a clock that stands still until the world moves it, timers and a
 * sleep on that clock, and `run`, which drives a piece of async work to its end. Whenever the
 * work can make no progress without time passing (every promise it could settle has settled),
 * `run` moves the clock to the earliest armed timer and fires it; timers due at the same
 * instant fire in an order drawn from the world's seed. That order, and the seeded durations
 * of tool calls and model calls that are sleeps on this clock, is the interleaving of
 * concurrent work: which tool call settles first, whether a deadline or an answer wins.
 *
 * Nothing here waits on the wall clock. `run` yields to the event loop with `setImmediate`
 * only to learn that the work is idle; work that waits on anything else (real timers, real
 * I/O) is reported as stuck.
 *
 * @example
 * ```ts
 * const time = createVirtualTime({ start: Date.UTC(2026, 0, 1), random: seededRandom(7) });
 * const result = await time.run(async () => {
 *   await time.sleep(5_000); // no real waiting
 *   return time.clock.now(); // start + 5000
 * });
 * ```
 */
export interface VirtualTime {
  readonly clock: Clock;
  readonly timers: VirtualTimers;
  /** Waits `ms` of world time; rejects with CANCELLED when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Drives `work` to its end, firing timers whenever it is idle. Timers left armed at the end are dropped. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Timers armed and not yet fired or cleared. */
  pending(): number;
}

export interface VirtualTimeOptions {
  /** Epoch milliseconds the clock starts at. */
  readonly start: number;
  /** Breaks ties between timers due at the same instant. */
  readonly random: SeededRandom;
  /** Timers `run` may fire before it gives up on the work as never ending. Default 100,000. */
  readonly maxFires?: number;
  /** Idle turns without an armed timer before `run` reports the work stuck. Default 32. */
  readonly maxIdleTurns?: number;
}

interface Timer {
  readonly id: number;
  readonly due: number;
  readonly callback: () => void;
}

const idle = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createVirtualTime(options: VirtualTimeOptions): VirtualTime {
  const clock = steppingClock(options.start, 0);
  let now = options.start;
  let nextId = 1;
  const armed = new Map<number, Timer>();
  const timers: VirtualTimers = {
    setTimeout(callback, ms) {
      const id = nextId++;
      armed.set(id, { id, due: now + Math.max(0, Math.trunc(Number.isFinite(ms) ? ms : 0)), callback });
      return id;
    },
    clearTimeout(handle) {
      armed.delete(handle as number);
    },
  };
  const sleep = (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      const cancelled = () => new YokeError("CANCELLED", "the sleep was cancelled", { cause: signal?.reason });
      if (signal?.aborted) return reject(cancelled());
      const onAbort = () => {
        timers.clearTimeout(handle);
        reject(cancelled());
      };
      const handle = timers.setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  /** The earliest timer; among timers due together, a seeded pick. */
  const nextTimer = (): Timer | undefined => {
    let due = Number.POSITIVE_INFINITY;
    for (const timer of armed.values()) if (timer.due < due) due = timer.due;
    const ready = [...armed.values()].filter((timer) => timer.due === due);
    return ready.length === 0 ? undefined : ready.length === 1 ? ready[0] : options.random.pick(ready);
  };
  return {
    clock,
    timers,
    sleep,
    pending: () => armed.size,
    async run<T>(work: () => Promise<T>): Promise<T> {
      let settled = false;
      let value: T | undefined;
      let failure: { error: unknown } | undefined;
      work().then(
        (result) => {
          settled = true;
          value = result;
        },
        (error: unknown) => {
          settled = true;
          failure = { error };
        },
      );
      let fires = 0;
      let idleTurns = 0;
      for (;;) {
        await idle();
        if (settled) break;
        const timer = nextTimer();
        if (timer === undefined) {
          if (++idleTurns > (options.maxIdleTurns ?? 32)) {
            throw new YokeError(
              "TESTKIT_EXPECTATION_FAILED",
              "simulation: the work is waiting on something outside the world (no timer is armed and it does not finish)",
            );
          }
          continue;
        }
        idleTurns = 0;
        if (++fires > (options.maxFires ?? 100_000)) {
          throw new YokeError("TESTKIT_EXPECTATION_FAILED", `simulation: the work did not finish within ${fires - 1} timer firings`);
        }
        armed.delete(timer.id);
        clock.advance(timer.due - now);
        now = timer.due;
        timer.callback();
      }
      armed.clear();
      if (failure !== undefined) throw failure.error;
      return value as T;
    },
  };
}
