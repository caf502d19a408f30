import { YokeError, type GenerateOptions, type ModelRequest, type ModelResponse, type ProviderAdapterV1, type ProviderCapabilities } from "@yoke/protocol";
import { cancellable, withRequestId } from "@yoke/protocol/provider-utils";
import { admitAnthropicRequest } from "./admission.js";
import { anthropicModelFamily } from "./capabilities.js";
import { messagesBody } from "./messages-request.js";
import { mapMessage } from "./messages-response.js";
import { consumeMessagesStream, readMessage, type WireStreamEvent } from "./messages-stream.js";
import { readAnthropicOptions } from "./provider-options.js";
import { createAnthropicTransport, mappedStream, type AnthropicConnection } from "./transport.js";

/**
 * How to build an Anthropic adapter.
 *
 * @example
 * ```ts
 * const provider = createAnthropicProvider({ model: "claude-sonnet-4-6", apiKey: process.env.ANTHROPIC_API_KEY });
 * ```
 */
export interface AnthropicProviderOptions extends AnthropicConnection {
  /** The model id, e.g. `claude-sonnet-4-6`. Its family sets the capability matrix. */
  model: string;
  /** Stream responses (default true). The result is the same; `onStreamPart` sees the deltas. */
  stream?: boolean;
  /** Overrides parts of the family's capability matrix. */
  capabilities?: Partial<ProviderCapabilities>;
  /** For HTTP-date `retry-after` headers. Default `Date.now`. */
  now?: () => number;
}

/** An Anthropic `ProviderAdapterV1`, with the family it was built for. */
export interface AnthropicProvider extends ProviderAdapterV1 {
  readonly provider: "anthropic";
  readonly family: string;
  /** Runs the admission check alone: warnings, or a PROVIDER_ADMISSION_REJECTED throw. */
  admit(request: ModelRequest): string[];
}

/**
 * Creates an adapter for an Anthropic model over the official `@anthropic-ai/sdk`. The SDK's
 * own retries are off (`maxRetries: 0` on every call): the runtime retries, journaling each
 * attempt and waiting the `retryAfterMs` this adapter reports.
 *
 * @example
 * ```ts
 * const provider = createAnthropicProvider({ model: "claude-sonnet-4-6" });
 * const response = await provider.generate({ messages, tools, stablePrefixMessages: 2 });
 * response.usage.cacheReadTokens; // input served from the prompt cache
 * ```
 */
export function createAnthropicProvider(options: AnthropicProviderOptions): AnthropicProvider {
  const stream = options.stream ?? true;
  const now = options.now ?? Date.now;
  const row = anthropicModelFamily(options.model);
  const family = { ...row, capabilities: { ...row.capabilities, ...options.capabilities } };
  const transport = createAnthropicTransport(options, now);
  const target = { modelId: options.model, family, stream };

  const run = async (request: ModelRequest, { signal, onStreamPart }: GenerateOptions): Promise<ModelResponse> => {
    const requestOptions = readAnthropicOptions(request);
    const warnings = admitAnthropicRequest(request, requestOptions, target);
    if (signal?.aborted) throw new YokeError("CANCELLED", "the anthropic call was cancelled before it was sent", { cause: signal.reason });
    const { result, requestId } = await transport.call(messagesBody(request, requestOptions, target), signal);
    try {
      const wire = stream
        ? await consumeMessagesStream(mappedStream(result as AsyncIterable<WireStreamEvent>, signal, now, requestId), onStreamPart)
        : readMessage(result as Parameters<typeof readMessage>[0]);
      return { ...mapMessage(wire, options.model, warnings), ...(requestId === undefined ? {} : { requestId }) };
    } catch (error) {
      // Raised after the 200 (a stream without message_stop): keep the request id.
      throw withRequestId(error, requestId);
    }
  };

  return {
    specificationVersion: "v1",
    provider: "anthropic",
    modelId: options.model,
    family: family.family,
    capabilities: family.capabilities,
    admit: (request) => admitAnthropicRequest(request, readAnthropicOptions(request), target),
    async generate(request, generateOptions = {}) {
      // The SDK ends a stream quietly when its request is aborted: cancellable names the cause.
      const response = await cancellable("anthropic", generateOptions.signal, () => run(request, generateOptions));
      // The view learns that a refused response's calls will not run before it learns it ended.
      for (const part of response.content)
        if (part.type === "tool-call-withheld") generateOptions.onStreamPart?.({ type: "tool-call-withheld", toolCallId: part.toolCallId });
      generateOptions.onStreamPart?.({ type: "finish", response });
      return response;
    },
  };
}
