import { YokeError, type ModelRequest, type ModelResponse, type ModelStreamPart, type ProviderAdapterV1 } from "@yoke/protocol";
import type { Timers } from "@yoke/scheduler";
import type { BoundLogger as Logger } from "./logger.js";

/** Waits `ms` milliseconds; rejects with CANCELLED if `signal` aborts first. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** The real sleep: a timer, cleared on abort. */
export const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(cancelled(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelled(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });

const RETRYABLE_CODES = new Set(["PROVIDER_RATE_LIMITED", "PROVIDER_UNAVAILABLE", "PROVIDER_STREAM_CUT", "PROVIDER_TIMEOUT"]);
const BASE_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;

/** One failed model call attempt, as `model.failed` journals it. */
export interface ModelCallFailure {
  /** 1 for the first attempt. */
  readonly attempt: number;
  readonly code: string;
  readonly message: string;
  /** The error's class allows another attempt. */
  readonly retryable: boolean;
  /** Another attempt follows. */
  readonly retrying: boolean;
  /** The provider's request id for the attempt (`details.requestId` of its error), when it gave one. */
  readonly requestId?: string;
}

export interface ModelCallOptions {
  readonly signal: AbortSignal | undefined;
  /** Extra attempts after the first, for retryable provider errors. */
  readonly retries: number;
  readonly sleep: Sleep;
  readonly logger: Logger;
  /** Deadline of one attempt: on expiry its signal aborts and it fails with PROVIDER_TIMEOUT (retryable). */
  readonly timeoutMs: number;
  /** Arms the deadline. */
  readonly timers: Timers;
  /** Checks a response the provider returned; what it throws fails the attempt. */
  readonly accept: (raw: ModelResponse) => ModelResponse;
  /** Awaited after each failed attempt, before the retry's wait or the rethrow; never for a cancelled call. */
  readonly onFailure: (failure: ModelCallFailure) => Promise<void>;
  /** Told as each attempt starts (1 for the first): a cancellation then knows whether it cut an attempt or the wait before one. */
  readonly onAttempt?: (attempt: number) => void;
  /** Handed each part the provider streams during an attempt, until the attempt is decided (a late part of an abandoned one is not). */
  readonly onStreamPart?: (part: ModelStreamPart) => void;
}

/**
 * Calls the provider, retrying PROVIDER_RATE_LIMITED / UNAVAILABLE / STREAM_CUT / TIMEOUT
 * up to `retries` times. Waits `details.retryAfterMs` when the provider gave one, else an
 * exponential backoff. Any other error, or the last retryable one, is rethrown as is; each
 * failed attempt is reported to `onFailure` first. Each attempt has a deadline, and the
 * caller's abort ends the wait at once (CANCELLED) whether or not the provider honours its
 * signal: a late answer or error from an abandoned attempt is ignored.
 */
export async function generateWithRetry(provider: ProviderAdapterV1, request: ModelRequest, options: ModelCallOptions): Promise<ModelResponse> {
  for (let attempt = 0; ; attempt++) {
    try {
      options.onAttempt?.(attempt + 1);
      return options.accept(await attemptOnce(provider, request, options));
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const retrying = isRetryableModelError(error) && attempt < options.retries;
      const requestId = YokeError.isInstance(error) ? error.details.requestId : undefined;
      await options.onFailure({
        attempt: attempt + 1,
        code: YokeError.isInstance(error) ? error.code : "PROVIDER_UNAVAILABLE",
        message: error instanceof Error ? error.message : String(error),
        retryable: isRetryableModelError(error),
        retrying,
        ...(typeof requestId === "string" ? { requestId } : {}),
      });
      if (!retrying || !isRetryableModelError(error)) throw error;
      const waitMs = modelRetryDelayMs(error, attempt);
      options.logger.warn({ code: error.code, attempt: attempt + 1, waitMs, requestId }, "model call failed; retrying");
      await options.sleep(waitMs, options.signal);
    }
  }
}

/** One provider call raced against its deadline and the caller's abort. */
async function attemptOnce(provider: ProviderAdapterV1, request: ModelRequest, options: ModelCallOptions): Promise<ModelResponse> {
  const deadline = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  const timer = options.timers.setTimeout(
    () =>
      deadline.abort(
        new YokeError("PROVIDER_TIMEOUT", `the model did not answer within ${options.timeoutMs} ms`, { details: { timeoutMs: options.timeoutMs } }),
      ),
    options.timeoutMs,
  );
  let onAbort = () => {};
  const stopped = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(deadline.signal.aborted ? deadline.signal.reason : cancelled(options.signal!));
    signal.addEventListener("abort", onAbort, { once: true });
  });
  let decided = false;
  const relay = options.onStreamPart;
  const onStreamPart =
    relay === undefined
      ? undefined
      : (part: ModelStreamPart) => {
          if (!decided) relay(part);
        };
  const call = Promise.resolve().then(() => provider.generate(request, onStreamPart === undefined ? { signal } : { signal, onStreamPart }));
  // Once the race is decided the provider's late settlement has nobody to tell.
  call.catch(() => undefined);
  stopped.catch(() => undefined);
  try {
    if (signal.aborted) onAbort();
    return await Promise.race([call, stopped]);
  } finally {
    decided = true;
    options.timers.clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  }
}

/**
 * The model retry policy's test: a YokeError marked retryable whose code is
 * PROVIDER_RATE_LIMITED, PROVIDER_UNAVAILABLE, PROVIDER_STREAM_CUT or PROVIDER_TIMEOUT.
 *
 * @example
 * ```ts
 * isRetryableModelError(new YokeError("PROVIDER_RATE_LIMITED", "429")); // true
 * isRetryableModelError(new YokeError("PROVIDER_REQUEST_INVALID", "400")); // false
 * ```
 */
export function isRetryableModelError(error: unknown): error is YokeError {
  return YokeError.isInstance(error) && error.retryable && RETRYABLE_CODES.has(error.code);
}

/**
 * The model retry policy's wait before retry number `attempt + 1` (attempt 0 is the first
 * call): the provider's `details.retryAfterMs` when it gave one, else 500 ms doubled per
 * attempt, at most 30 s.
 *
 * @example
 * ```ts
 * modelRetryDelayMs(new YokeError("PROVIDER_UNAVAILABLE", "503"), 2); // 2000
 * modelRetryDelayMs(new YokeError("PROVIDER_RATE_LIMITED", "429", { details: { retryAfterMs: 7 } }), 0); // 7
 * ```
 */
export function modelRetryDelayMs(error: YokeError, attempt: number): number {
  const hinted = error.details.retryAfterMs;
  if (typeof hinted === "number" && Number.isFinite(hinted) && hinted >= 0) return hinted;
  return Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** attempt);
}

function cancelled(signal: AbortSignal): YokeError {
  return new YokeError("CANCELLED", "the wait was cancelled", { cause: signal.reason });
}
