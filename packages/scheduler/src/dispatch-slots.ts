/**
 * At most `limit` handlers of a batch run at once. A call that finds every slot taken waits
 * in line, first come first served (calls that are ready together ask in proposal order);
 * a released slot goes straight to the next in line.
 */
export class DispatchSlots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(limit: number) {
    this.#free = limit;
  }

  /** Resolves true once a slot is held, or false when `signal` aborts first (the place in line is given up). */
  acquire(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.#free > 0) {
      this.#free -= 1;
      return Promise.resolve(true);
    }
    // A waiter removes its abort listener when it is granted a slot (`once` removes it when it aborts).
    return new Promise<boolean>((resolve) => {
      const granted = () => {
        signal.removeEventListener("abort", onAbort);
        resolve(true);
      };
      const onAbort = () => {
        const position = this.#waiting.indexOf(granted);
        // Always true here: a granted waiter removes this listener first.
        if (position >= 0) this.#waiting.splice(position, 1);
        resolve(false);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(granted);
    });
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free += 1;
  }
}
