/**
 * A value a driver hands back at once (a synchronous store, SQLite over better-sqlite3) or
 * later (a network store, PostgreSQL). The shared semantics accept either.
 */
export type Awaitable<T> = T | PromiseLike<T>;

export function isThenable<T>(value: Awaitable<T>): value is PromiseLike<T> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}

/** Steps written once for both kinds of driver: they yield only what they have to wait for (see `settle`). */
export type Steps<T> = Generator<PromiseLike<unknown>, T, unknown>;

/**
 * Runs `steps` synchronously for as long as nothing is pending, so over a synchronous driver
 * a whole transaction body runs in one synchronous call (inside the driver's own transaction,
 * where no other work can interleave), and awaits from the first pending value on otherwise.
 */
export function drive<T>(steps: Steps<T>): Awaitable<T> {
  const first = steps.next();
  return first.done ? first.value : driveAsync(steps, first.value);
}

async function driveAsync<T>(steps: Steps<T>, pending: PromiseLike<unknown>): Promise<T> {
  for (;;) {
    let value: unknown;
    let failure: { readonly error: unknown } | undefined;
    try {
      value = await pending;
    } catch (error) {
      failure = { error };
    }
    // A rejection is thrown inside the steps, where their own try/catch sees it.
    const result = failure === undefined ? steps.next(value) : steps.throw(failure.error);
    if (result.done) return result.value;
    pending = result.value;
  }
}

/**
 * `value` itself when the driver answered at once (nothing is yielded), else its settled value
 * once `drive` has awaited it: `const lease = yield* settle(tx.lease(scope))`.
 */
export function* settle<T>(value: Awaitable<T>): Steps<T> {
  if (!isThenable(value)) return value;
  return (yield value) as T;
}
