/**
 * Where Yoke reads the time. Injected everywhere so runs, tests and replays are
 * deterministic.
 *
 * @example
 * ```ts
 * const clock: Clock = { specificationVersion: "v1", now: () => Date.now() };
 * ```
 */
export interface Clock {
  readonly specificationVersion: "v1";
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The wall clock. */
export function systemClock(): Clock {
  return { specificationVersion: "v1", now: () => Date.now() };
}

/**
 * A clock that only moves when told: starts at `start` and advances by `step` ms on every
 * read (0 keeps it still). Useful for deterministic journals.
 */
export function steppingClock(start = 0, step = 0): Clock & { advance(ms: number): void } {
  let current = start;
  return {
    specificationVersion: "v1",
    now() {
      const value = current;
      current += step;
      return value;
    },
    advance(ms: number) {
      current += ms;
    },
  };
}
