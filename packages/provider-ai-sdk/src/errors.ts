import { YokeError } from "@yoke/protocol";
import { providerError, withRequestId, type ProviderErrorContext } from "@yoke/protocol/provider-utils";

/** Where a failure was seen, for the shared classification; `requestId` from the 200's headers. */
export type AiSdkErrorContext = ProviderErrorContext;

interface ApiCallErrorLike {
  name?: string;
  message?: string;
  statusCode?: number;
  responseHeaders?: Record<string, string>;
  isRetryable?: boolean;
  data?: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

// The AI SDK's APICallError, recognised by shape so any installed copy of @ai-sdk/provider works.
function isApiCallError(error: Record<string, unknown>): error is Record<string, unknown> & ApiCallErrorLike {
  return error.name === "AI_APICallError" || (typeof error.isRetryable === "boolean" && "requestBodyValues" in error);
}

/**
 * The shape `providerError` reads, from an APICallError: its status, its response headers
 * (for `retry-after`, `retry-after-ms` and the request id) and the error body the provider
 * sent (`{ error: { type, code } }` for OpenAI-style APIs, `{ type: "error", error: { type } }`
 * for Anthropic's).
 */
function sdkErrorOf(error: ApiCallErrorLike, thrown: unknown): Record<string, unknown> {
  const data = isObject(error.data) ? error.data : undefined;
  const inner = isObject(data?.error) ? data.error : undefined;
  const code = typeof inner?.code === "string" ? inner.code : typeof data?.code === "string" ? data.code : undefined;
  return {
    name: error.name,
    message: error.message,
    ...(error.statusCode === undefined ? {} : { status: error.statusCode }),
    ...(error.responseHeaders === undefined ? {} : { headers: error.responseHeaders }),
    ...(code === undefined ? {} : { code }),
    ...(data === undefined ? {} : { error: data }),
    cause: thrown,
  };
}

/**
 * Turns whatever a wrapped AI SDK model threw, or sent as a stream `error` part, into a
 * YokeError with the same codes as every other adapter: an APICallError goes through the
 * shared classification of `providerError` (status, retry-after, request id, the provider's
 * error type); a provider's in-stream error body (`{ message, type, code }`) through its
 * status-less branch; a chunk the model could not parse or validate is
 * PROVIDER_RESPONSE_INVALID; a stream that ended without a finish reason, or broke after it
 * began, is PROVIDER_STREAM_CUT; an abort is CANCELLED.
 *
 * @example
 * ```ts
 * try { await model.doStream(callOptions); }
 * catch (thrown) { throw aiSdkError(thrown, { provider: model.provider, signal, streamStarted: false, now: Date.now }); }
 * ```
 */
export function aiSdkError(thrown: unknown, context: AiSdkErrorContext): YokeError {
  const classify = (): YokeError => {
    if (!isObject(thrown) || YokeError.isInstance(thrown) || context.signal?.aborted) return providerError(thrown, context);
    const name = typeof thrown.name === "string" ? thrown.name : undefined;
    const message = typeof thrown.message === "string" ? thrown.message : "the model call failed";
    const details = { provider: context.provider, ...(name === undefined ? {} : { type: name }) };
    if (isApiCallError(thrown)) {
      const status = thrown.statusCode;
      // Provider packages report a body that failed after a 2xx ("Failed to process successful
      // response") as an APICallError with that 2xx: the connection broke mid-stream, so its
      // cause is classified as a failure after the stream began, not by the status.
      if (typeof status === "number" && status >= 200 && status < 300) {
        const requestId = requestIdOf(thrown.responseHeaders) ?? context.requestId;
        return withRequestId(aiSdkError(thrown.cause ?? { message }, { ...context, streamStarted: true }), requestId);
      }
      return providerError(sdkErrorOf(thrown, thrown), context);
    }
    // A stream `error` part carrying the provider's own error body (an object, not an Error):
    // the provider named the error, so the shared table classifies it by its type or code.
    if (!(thrown instanceof Error) && (typeof thrown.type === "string" || typeof thrown.code === "string" || isObject(thrown.error))) {
      const body = isObject(thrown.error) ? thrown.error : thrown;
      return providerError({ message: typeof body.message === "string" ? body.message : message, error: thrown }, context);
    }
    if (name === "AI_InvalidResponseDataError" && /stream ended/i.test(message)) {
      return new YokeError("PROVIDER_STREAM_CUT", `the response stream was cut: ${message}`, { cause: thrown, details });
    }
    if (name === "AI_JSONParseError" || name === "AI_TypeValidationError" || name === "AI_InvalidResponseDataError") {
      return new YokeError("PROVIDER_RESPONSE_INVALID", message, { cause: thrown, details });
    }
    return providerError(thrown, context);
  };
  return withRequestId(classify(), context.requestId);
}

/** The provider's request id among response headers (`x-request-id`, `request-id`). */
export function requestIdOf(headers: Readonly<Record<string, string | undefined>> | undefined): string | undefined {
  if (headers === undefined) return undefined;
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if ((lower === "x-request-id" || lower === "request-id") && value !== undefined) return value;
  }
  return undefined;
}
