import Anthropic from "@anthropic-ai/sdk";
import { YokeError, type JsonValue } from "@yoke/protocol";
import { providerError, type ProviderErrorContext } from "@yoke/protocol/provider-utils";
import { callWithResponse, type SdkCall } from "./with-response.js";

/** The slice of the `@anthropic-ai/sdk` client the adapter calls, typed structurally. */
export interface AnthropicClientLike {
  messages: { create(body: never, options?: { signal?: AbortSignal; maxRetries?: number }): SdkCall };
}

/** How to reach Anthropic: a client you built, or what to build one from. */
export interface AnthropicConnection {
  client?: AnthropicClientLike | Anthropic;
  apiKey?: string;
  baseURL?: string;
  fetch?: typeof fetch;
  /** Per-request timeout in ms (the SDK default is 10 minutes). */
  timeoutMs?: number;
}

/**
 * Makes the HTTP call through the SDK and nothing else. Every call passes `maxRetries: 0`,
 * overriding the client's own setting: retries belong to the Yoke runtime, which journals
 * each attempt and honours retry-after; an SDK retry loop underneath would hide attempts from
 * the journal and multiply the waits.
 */
export interface AnthropicTransport {
  call(body: { [key: string]: JsonValue }, signal: AbortSignal | undefined): Promise<AnthropicCallResult>;
}

/** What a call returned (a stream or a message), and the `request-id` of its HTTP response. */
export interface AnthropicCallResult {
  readonly result: unknown;
  readonly requestId: string | undefined;
}

export function createAnthropicTransport(connection: AnthropicConnection, now: () => number): AnthropicTransport {
  let client = connection.client as AnthropicClientLike | undefined;
  // Built on first use, so capabilities and admission work without a key.
  const resolveClient = (): AnthropicClientLike => {
    client ??= new Anthropic({
      ...(connection.apiKey === undefined ? {} : { apiKey: connection.apiKey }),
      ...(connection.baseURL === undefined ? {} : { baseURL: connection.baseURL }),
      ...(connection.fetch === undefined ? {} : { fetch: connection.fetch }),
      ...(connection.timeoutMs === undefined ? {} : { timeout: connection.timeoutMs }),
      maxRetries: 0,
    }) as unknown as AnthropicClientLike;
    return client;
  };
  return {
    async call(body, signal) {
      try {
        return await callWithResponse(
          resolveClient().messages.create(body as never, { maxRetries: 0, ...(signal === undefined ? {} : { signal }) }),
          "request-id",
        );
      } catch (error) {
        throw anthropicError(error, { provider: "anthropic", signal, streamStarted: false, now });
      }
    },
  };
}

/**
 * Iterates an SDK stream, mapping a failure mid-way (an `error` event, a lost connection) to
 * a YokeError that carries the request id of the response the stream came in.
 */
export async function* mappedStream<T>(
  stream: AsyncIterable<T>,
  signal: AbortSignal | undefined,
  now: () => number,
  requestId: string | undefined,
): AsyncIterable<T> {
  try {
    for await (const event of stream) yield event;
  } catch (error) {
    throw anthropicError(error, { provider: "anthropic", signal, streamStarted: true, now, requestId });
  }
}

// Anthropic answers a prompt past the context window with a plain invalid_request_error
// whose message says so ("prompt is too long: 208342 tokens > 200000 maximum").
const PROMPT_TOO_LONG = /prompt is too long/i;

/**
 * `providerError`, with Anthropic's "prompt is too long" invalid-request error classified as
 * what it is, a context-length error (`details.kind: "context_length"`), however it arrived.
 * Still PROVIDER_REQUEST_INVALID and never retryable: the same request fails the same way.
 */
export function anthropicError(thrown: unknown, context: ProviderErrorContext): YokeError {
  const error = providerError(thrown, context);
  if (error.details.kind !== "invalid_request" || !PROMPT_TOO_LONG.test(error.message)) return error;
  const refined = new YokeError(error.code, error.message, {
    cause: error.cause,
    details: { ...error.details, kind: "context_length" },
    retryable: error.retryable,
  });
  if (error.stack !== undefined) refined.stack = error.stack;
  return refined;
}
