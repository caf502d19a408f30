import OpenAI from "openai";
import type { JsonValue } from "@yoke/protocol";
import { providerError } from "@yoke/protocol/provider-utils";
import { callWithResponse, type SdkCall } from "./with-response.js";
import type { OpenAIApi } from "./admission.js";

/**
 * The slice of the `openai` SDK client the adapter calls, typed structurally.
 */
export interface OpenAIClientLike {
  responses: { create(body: never, options?: { signal?: AbortSignal; maxRetries?: number }): SdkCall };
  chat: { completions: { create(body: never, options?: { signal?: AbortSignal; maxRetries?: number }): SdkCall } };
}

/** How to reach OpenAI: a client you built, or what to build one from. */
export interface OpenAIConnection {
  client?: OpenAIClientLike | OpenAI;
  apiKey?: string;
  baseURL?: string;
  fetch?: typeof fetch;
  /** Per-request timeout in ms (the SDK default is 10 minutes). */
  timeoutMs?: number;
}

/**
 * Makes the HTTP call through the SDK and nothing else: no mapping, no retries. Every call
 * passes `maxRetries: 0`, overriding the client's own setting: retries belong to the Yoke
 * runtime, which journals each attempt and honours the provider's retry-after; an SDK retry
 * loop underneath would hide attempts from the journal and multiply the waits.
 */
export interface OpenAITransport {
  call(api: OpenAIApi, body: { [key: string]: JsonValue }, signal: AbortSignal | undefined): Promise<OpenAICallResult>;
}

/** What a call returned (a stream or a body), and the `x-request-id` of its HTTP response. */
export interface OpenAICallResult {
  readonly result: unknown;
  readonly requestId: string | undefined;
}

export function createOpenAITransport(connection: OpenAIConnection, now: () => number): OpenAITransport {
  let client = connection.client as OpenAIClientLike | undefined;
  // Built on first use, so capabilities and admission work without a key.
  const resolveClient = (): OpenAIClientLike => {
    client ??= new OpenAI({
      ...(connection.apiKey === undefined ? {} : { apiKey: connection.apiKey }),
      ...(connection.baseURL === undefined ? {} : { baseURL: connection.baseURL }),
      ...(connection.fetch === undefined ? {} : { fetch: connection.fetch }),
      ...(connection.timeoutMs === undefined ? {} : { timeout: connection.timeoutMs }),
      maxRetries: 0,
    }) as unknown as OpenAIClientLike;
    return client;
  };
  return {
    async call(api, body, signal) {
      const options = { maxRetries: 0, ...(signal === undefined ? {} : { signal }) };
      try {
        const sdk = resolveClient();
        const endpoint = api === "responses" ? sdk.responses : sdk.chat.completions;
        return await callWithResponse(endpoint.create(body as never, options), "x-request-id");
      } catch (error) {
        throw providerError(error, { provider: "openai", signal, streamStarted: false, now });
      }
    },
  };
}

/**
 * Iterates an SDK stream, mapping a failure mid-way to a YokeError (a lost connection is a
 * cut stream) that carries the request id of the response the stream came in.
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
    // The HTTP response was accepted before iteration began: any transport failure now is a cut.
    throw providerError(error, { provider: "openai", signal, streamStarted: true, now, requestId });
  }
}
