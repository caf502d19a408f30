import { YokeError } from "./errors.js";
import { classifyProviderError } from "./provider-error-classes.js";

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
// nested `error.type`), most specific first; "error" itself names nothing.
function errorTypes(error: SdkErrorLike): string[] {
  const candidates = [error.code, error.error?.code, error.type, error.error?.error?.type, error.error?.type];
  return [...new Set(candidates.filter((value): value is string => typeof value === "string" && value !== "error"))];
}

/** What `providerError` needs to know about the call an error came from. */
export interface ProviderErrorContext {
  readonly provider: string;
  readonly signal: AbortSignal | undefined;
  /** True once the first stream event arrived: a transport failure after it is a cut stream. */
  readonly streamStarted: boolean;
  readonly now: () => number;
  /**
   * The request id of the HTTP response the stream came in, for an error that carries no
   * headers of its own (a cut connection, an event the adapter itself rejected).
   */
  readonly requestId?: string | undefined;
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
 * Turns whatever a provider SDK threw into a YokeError, for every adapter alike. An error
 * the provider named (an HTTP error body, an `error` event inside a 200 stream) is classified
 * by one table, `classifyProviderError`, so the same error gets the same code and
 * retryability however it arrived; `details` carry `kind`, `type`, `status`, `requestId` and
 * `retryAfterMs` when known. An abort is CANCELLED; a connection lost after the stream began
 * is PROVIDER_STREAM_CUT; unparseable event data is PROVIDER_RESPONSE_INVALID.
 *
 * @example
 * ```ts
 * try { await client.responses.create(body, { signal }); }
 * catch (thrown) { throw providerError(thrown, { provider: "openai", signal, streamStarted: false, now: clock.now }); }
 * ```
 */
export function providerError(thrown: unknown, context: ProviderErrorContext): YokeError {
  if (YokeError.isInstance(thrown)) return withRequestId(thrown, context.requestId);
  const error = (typeof thrown === "object" && thrown !== null ? thrown : { message: String(thrown) }) as SdkErrorLike;
  const message = error.message ?? "the provider call failed";
  const requestId = header(error, "x-request-id") ?? header(error, "request-id") ?? context.requestId;
  if (context.signal?.aborted || error.name === "APIUserAbortError" || error.name === "AbortError") {
    const details = requestId === undefined ? { provider: context.provider } : { provider: context.provider, requestId };
    return new YokeError("CANCELLED", `the ${context.provider} call was cancelled`, { cause: thrown, details });
  }
  const wait = retryAfterMs(error, context.now);
  const types = errorTypes(error);
  const details: Record<string, unknown> = { provider: context.provider };
  if (error.status !== undefined) details.status = error.status;
  if (types[0] !== undefined) details.type = types[0];
  if (requestId !== undefined) details.requestId = requestId;
  if (wait !== undefined) details.retryAfterMs = wait;
  // Named by the provider: an HTTP status, or an error body (an in-stream `error` event). A
  // transport error's own `code` (ECONNRESET, UND_ERR_SOCKET) names no provider error.
  if (typeof error.status === "number" || (typeof error.error === "object" && error.error !== null)) {
    const named = classifyProviderError(types, error.status);
    details.kind = named.kind;
    return new YokeError(named.code, message, { cause: thrown, details, retryable: named.retryable });
  }
  const options = { cause: thrown, details };
  if (error.name === "SyntaxError") return new YokeError("PROVIDER_RESPONSE_INVALID", message, options);
  if (context.streamStarted) return new YokeError("PROVIDER_STREAM_CUT", `the response stream was cut: ${message}`, options);
  return new YokeError("PROVIDER_UNAVAILABLE", message, options);
}

/**
 * The same error with `details.requestId` set, when it had none and one is known: for an
 * error raised after the provider's 200 (a stream that ended early, a failed response), so
 * the incident can still be taken to the provider. Anything not a YokeError is returned as is.
 *
 * @example
 * ```ts
 * try { return consume(stream); } catch (error) { throw withRequestId(error, requestId); }
 * ```
 */
export function withRequestId<E>(error: E, requestId: string | undefined): E {
  if (requestId === undefined || !YokeError.isInstance(error) || typeof error.details.requestId === "string") return error;
  const copy = new YokeError(error.code, error.message, { cause: error.cause, details: { ...error.details, requestId }, retryable: error.retryable });
  if (error.stack !== undefined) copy.stack = error.stack;
  return copy as E;
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
      // A request that was answered keeps its id, even when the caller abandoned it.
      const requestId = YokeError.isInstance(error) ? error.details.requestId : undefined;
      const details = typeof requestId === "string" ? { provider, requestId } : { provider };
      throw new YokeError("CANCELLED", `the ${provider} call was cancelled`, { cause: error, details });
    }
    throw error;
  }
  if (signal?.aborted) throw new YokeError("CANCELLED", `the ${provider} call was cancelled`, { details: { provider } });
  return result;
}
