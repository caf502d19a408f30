import {
  YokeError,
  type GenerateOptions,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamPart,
  type ProviderAdapterV1,
  type ProviderCapabilities,
} from "@yoke/protocol";
import { cancellable, withRequestId } from "@yoke/protocol/provider-utils";
import { admitOpenAIRequest, type OpenAIApi } from "./admission.js";
import { openAICapabilities, openAIModelFamily } from "./capabilities.js";
import { chatBody } from "./chat-request.js";
import { consumeChatStream, mapChatResult, readChatCompletion, type WireChatCompletion } from "./chat-response.js";
import { readOpenAIOptions } from "./provider-options.js";
import { responsesBody } from "./responses-request.js";
import { mapResponsesResult, type WireResponse } from "./responses-response.js";
import { consumeResponsesStream, type WireResponsesEvent } from "./responses-stream.js";
import { createOpenAITransport, mappedStream, type OpenAIConnection } from "./transport.js";

/**
 * How to build an OpenAI adapter.
 *
 * @example
 * ```ts
 * const provider = createOpenAIProvider({ model: "gpt-5-mini", apiKey: process.env.OPENAI_API_KEY });
 * const chat = createOpenAIProvider({ model: "gpt-4.1-mini", api: "chat", client: new OpenAI() });
 * ```
 */
export interface OpenAIProviderOptions extends OpenAIConnection {
  /** The model id, e.g. `gpt-5-mini`. Its family sets the capability matrix. */
  model: string;
  /** `responses` (default) or `chat` (Chat Completions). */
  api?: OpenAIApi;
  /** Stream responses (default true). The result is the same; `onStreamPart` sees the deltas. */
  stream?: boolean;
  /**
   * Overrides parts of the family's capability matrix (a new model, a fine-tune). The
   * endpoint's own entries (`maxStopSequences`, `strictTools`) are filled first, so an
   * override wins.
   */
  capabilities?: Partial<ProviderCapabilities>;
  /** For HTTP-date `retry-after` headers. Default `Date.now`. */
  now?: () => number;
}

/** An OpenAI `ProviderAdapterV1`, with the family and endpoint it was built for. */
export interface OpenAIProvider extends ProviderAdapterV1 {
  readonly provider: "openai";
  readonly api: OpenAIApi;
  readonly family: string;
  /**
   * Runs the admission check alone: the warnings for settings that would be dropped, or a
   * PROVIDER_ADMISSION_REJECTED throw. `generate` runs it before any network call.
   */
  admit(request: ModelRequest): string[];
}

/**
 * Creates an adapter for an OpenAI model over the official `openai` SDK. The SDK's own
 * retries are off (`maxRetries: 0` on every call): the runtime retries, journaling each
 * attempt and waiting the `retryAfterMs` this adapter reports.
 *
 * @example
 * ```ts
 * const provider = createOpenAIProvider({ model: "gpt-5-mini" });
 * const response = await provider.generate({ messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }], tools: [] });
 * ```
 */
export function createOpenAIProvider(options: OpenAIProviderOptions): OpenAIProvider {
  const api = options.api ?? "responses";
  const stream = options.stream ?? true;
  const now = options.now ?? Date.now;
  const row = openAIModelFamily(options.model);
  const family = { ...row, capabilities: { ...openAICapabilities(row, api), ...options.capabilities } };
  const transport = createOpenAITransport(options, now);
  const target = { modelId: options.model, api, family, stream };

  const admit = (request: ModelRequest) => admitOpenAIRequest(request, readOpenAIOptions(request), target);

  const run = async (request: ModelRequest, generateOptions: GenerateOptions): Promise<ModelResponse> => {
    const requestOptions = readOpenAIOptions(request);
    const warnings = admitOpenAIRequest(request, requestOptions, target);
    const { signal, onStreamPart } = generateOptions;
    if (signal?.aborted) throw new YokeError("CANCELLED", "the openai call was cancelled before it was sent", { cause: signal.reason });
    const body = api === "responses" ? responsesBody(request, requestOptions, target) : chatBody(request, requestOptions, target);
    const { result, requestId } = await transport.call(api, body, signal);
    try {
      const response = await readResult(result, (events) => mappedStream(events, signal, now, requestId), onStreamPart, warnings);
      return requestId === undefined ? response : { ...response, requestId };
    } catch (error) {
      // Raised after the 200 (response.failed, a stream without its terminal event): keep the request id.
      throw withRequestId(error, requestId);
    }
  };

  const readResult = async (
    result: unknown,
    mapped: <T>(events: AsyncIterable<T>) => AsyncIterable<T>,
    onStreamPart: GenerateOptions["onStreamPart"],
    warnings: string[],
  ): Promise<ModelResponse> => {
    if (api === "responses") {
      const wire = stream ? await consumeResponsesStream(mapped(result as AsyncIterable<WireResponsesEvent>), onStreamPart) : (result as WireResponse);
      return mapResponsesResult(wire, options.model, warnings);
    }
    const chat = stream
      ? await consumeChatStream(mapped(result as AsyncIterable<WireChatCompletion>), onStreamPart)
      : readChatCompletion(result as WireChatCompletion);
    return mapChatResult(chat, options.model, warnings);
  };

  return {
    specificationVersion: "v1",
    provider: "openai",
    modelId: options.model,
    api,
    family: family.family,
    capabilities: family.capabilities,
    admit,
    async generate(request, generateOptions = {}) {
      // The SDK ends a stream quietly when its request is aborted: cancellable names the cause.
      const response = await cancellable("openai", generateOptions.signal, () => run(request, generateOptions));
      emitFinish(generateOptions.onStreamPart, response);
      return response;
    },
  };
}

function emitFinish(emit: ((part: ModelStreamPart) => void) | undefined, response: ModelResponse): void {
  // The view learns that a refused response's calls will not run before it learns it ended.
  for (const part of response.content) if (part.type === "tool-call-withheld") emit?.({ type: "tool-call-withheld", toolCallId: part.toolCallId });
  emit?.({ type: "finish", response });
}
