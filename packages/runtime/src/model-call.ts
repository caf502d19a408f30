import { YokeError, type ModelRequest, type ModelResponse, type ProviderAdapterV1 } from "@yoke/protocol";
import type { Logger } from "./logger.js";

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

const RETRYABLE_CODES = new Set(["PROVIDER_RATE_LIMITED", "PROVIDER_UNAVAILABLE", "PROVIDER_STREAM_CUT"]);
const BASE_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;

export interface ModelCallOptions {
  readonly signal: AbortSignal | undefined;
  /** Extra attempts after the first, for retryable provider errors. */
  readonly retries: number;
  readonly sleep: Sleep;
  readonly logger: Logger;
}

/**
 * Calls the provider, retrying PROVIDER_RATE_LIMITED / UNAVAILABLE / STREAM_CUT up to
 * `retries` times. Waits `details.retryAfterMs` when the provider gave one, else an
 * exponential backoff. Any other error, or the last retryable one, is rethrown as is.
 * Nothing is journaled for a failed call: the request is already durable, and a resume asks
 * again.
 */
export async function generateWithRetry(
  provider: ProviderAdapterV1,
  request: ModelRequest,
  options: ModelCallOptions,
): Promise<ModelResponse> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await provider.generate(request, options.signal ? { signal: options.signal } : {});
    } catch (error) {
      if (!isRetryable(error) || attempt >= options.retries || options.signal?.aborted) throw error;
      const waitMs = retryDelay(error, attempt);
      options.logger.warn({ code: error.code, attempt: attempt + 1, waitMs }, "model call failed; retrying");
      await options.sleep(waitMs, options.signal);
    }
  }
}

function isRetryable(error: unknown): error is YokeError {
  return YokeError.isInstance(error) && error.retryable && RETRYABLE_CODES.has(error.code);
}

function retryDelay(error: YokeError, attempt: number): number {
  const hinted = error.details.retryAfterMs;
  if (typeof hinted === "number" && Number.isFinite(hinted) && hinted >= 0) return hinted;
  return Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** attempt);
}

function cancelled(signal: AbortSignal): YokeError {
  return new YokeError("CANCELLED", "the wait was cancelled", { cause: signal.reason });
}
