import { YokeError } from "./errors.js";

/**
 * What is read from a provider SDK's error, typed structurally so any installed SDK copy
 * (openai, @anthropic-ai/sdk, or a fetch-based client) works.
 */
export interface SdkErrorLike {
  name?: string;
  message?: string;
  status?: number;
  headers?: { get(name: string): string | null } | Record<string, string> | undefined;
  code?: string | null;
  type?: string | null;
  error?: { type?: string; code?: string; message?: string; error?: { type?: string } } | null;
}

// SDKs put the error's kind in different places (`type`, the body's `code`, Anthropic's
// nested `error.type`); "error" itself names nothing.
function errorType(error: SdkErrorLike): string | undefined {
  const candidates = [error.code, error.error?.code, error.type, error.error?.error?.type, error.error?.type];
  return candidates.find((value): value is string => typeof value === "string" && value !== "error");
}

export interface ProviderErrorContext {
  readonly provider: string;
  readonly signal: AbortSignal | undefined;
  /** True once the first stream event arrived: a transport failure after it is a cut stream. */
  readonly streamStarted: boolean;
  readonly now: () => number;
}

function header(error: SdkErrorLike, name: string): string | undefined {
  const headers = error.headers;
  if (headers === undefined) return undefined;
  const value = typeof headers.get === "function" ? (headers as { get(name: string): string | null }).get(name) : (headers as Record<string, string>)[name];
  return value ?? undefined;
}

/**
 * The wait a response asked for, in ms: `retry-after-ms`, else `retry-after` as seconds or
 * an HTTP date. Undefined when absent or unreadable.
 */
export function retryAfterMs(error: SdkErrorLike, now: () => number): number | undefined {
  const ms = header(error, "retry-after-ms");
  if (ms !== undefined && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const after = header(error, "retry-after");
  if (after === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(after.trim())) return Math.round(Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}

/**
 * Turns whatever a provider SDK threw into a YokeError, for every adapter alike: 429 → PROVIDER_RATE_LIMITED; 408, 409 and
 * 5xx → PROVIDER_UNAVAILABLE (both retryable, with `details.retryAfterMs` when the response
 * named one); other 4xx → PROVIDER_REQUEST_INVALID; an abort → CANCELLED; a connection lost
 * after the stream began → PROVIDER_STREAM_CUT.
 *
 * @example
 * ```ts
 * try { await client.responses.create(body, { signal }); }
 * catch (thrown) { throw providerError(thrown, { provider: "openai", signal, streamStarted: false, now: clock.now }); }
 * ```
 */
export function providerError(thrown: unknown, context: ProviderErrorContext): YokeError {
  if (YokeError.isInstance(thrown)) return thrown;
  const error = (typeof thrown === "object" && thrown !== null ? thrown : { message: String(thrown) }) as SdkErrorLike;
  const message = error.message ?? "the provider call failed";
  if (context.signal?.aborted || error.name === "APIUserAbortError" || error.name === "AbortError") {
    return new YokeError("CANCELLED", `the ${context.provider} call was cancelled`, { cause: thrown, details: { provider: context.provider } });
  }
  const requestId = header(error, "x-request-id") ?? header(error, "request-id");
  const wait = retryAfterMs(error, context.now);
  const type = errorType(error);
  const details: Record<string, unknown> = { provider: context.provider };
  if (error.status !== undefined) details.status = error.status;
  if (type !== undefined) details.type = type;
  if (requestId !== undefined) details.requestId = requestId;
  if (wait !== undefined) details.retryAfterMs = wait;
  const options = { cause: thrown, details };
  const status = error.status;
  if (typeof status === "number") {
    if (status === 429) {
      // A spent quota is not a rate: waiting does not help.
      return new YokeError("PROVIDER_RATE_LIMITED", message, { ...options, retryable: type !== "insufficient_quota" });
    }
    if (status === 408 || status === 409 || status >= 500) return new YokeError("PROVIDER_UNAVAILABLE", message, options);
    return new YokeError("PROVIDER_REQUEST_INVALID", message, options);
  }
  if (type !== undefined) {
    // An error event inside a stream (no HTTP status).
    if (type === "rate_limit_error" || type === "rate_limit_exceeded" || type === "requests") return new YokeError("PROVIDER_RATE_LIMITED", message, options);
    if (type === "invalid_request_error") return new YokeError("PROVIDER_REQUEST_INVALID", message, options);
    return new YokeError("PROVIDER_UNAVAILABLE", message, options);
  }
  if (error.name === "SyntaxError") return new YokeError("PROVIDER_RESPONSE_INVALID", message, options);
  if (context.streamStarted) return new YokeError("PROVIDER_STREAM_CUT", `the response stream was cut: ${message}`, options);
  return new YokeError("PROVIDER_UNAVAILABLE", message, options);
}

/**
 * Runs one provider call so that an abort always surfaces as CANCELLED: SDKs end a stream
 * quietly, or fail with an error of their own, when their request is aborted. A call that
 * fails after its signal aborted rejects with CANCELLED (the SDK's error as its cause); one
 * that resolves after it aborted rejects with CANCELLED too, so no late result is used.
 *
 * @example
 * ```ts
 * const response = await cancellable("openai", options.signal, () => stream(request, options));
 * ```
 */
export async function cancellable<T>(provider: string, signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await call();
  } catch (error) {
    if (signal?.aborted && !YokeError.hasCode(error, "CANCELLED")) {
      throw new YokeError("CANCELLED", `the ${provider} call was cancelled`, { cause: error, details: { provider } });
    }
    throw error;
  }
  if (signal?.aborted) throw new YokeError("CANCELLED", `the ${provider} call was cancelled`, { details: { provider } });
  return result;
}
