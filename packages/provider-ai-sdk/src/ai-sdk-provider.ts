import type { LanguageModelV3, LanguageModelV4, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { YokeError, type GenerateOptions, type ModelRequest, type ModelResponse, type ProviderAdapterV1, type ProviderCapabilities } from "@yoke/protocol";
import { cancellable, withRequestId } from "@yoke/protocol/provider-utils";
import { admitAiSdkRequest } from "./admission.js";
import { asLanguageModelV4 } from "./as-language-model-v4.js";
import { toCallOptions } from "./call-options.js";
import { aiSdkCapabilities, declaredSupportedUrls } from "./capabilities.js";
import { aiSdkError, requestIdOf } from "./errors.js";
import { mapFolded } from "./map-response.js";
import { readAiSdkOptions, withResponseFormat } from "./provider-options.js";
import { StreamFolder, warningText, type FoldedResult } from "./stream-folder.js";

/**
 * How to build a bridge to an AI SDK language model.
 *
 * @example
 * ```ts
 * import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
 * const local = createOpenAICompatible({ name: "local", baseURL: "http://127.0.0.1:11434/v1" });
 * const provider = createAiSdkProvider({ model: local.chatModel("qwen3:8b"), capabilities: { contextWindow: 40_960 } });
 * ```
 */
export interface AiSdkProviderOptions {
  /**
   * Any `LanguageModelV4` (specification `v4` of `@ai-sdk/provider` 4), e.g.
   * `google("gemini-2.5-flash")`. A `LanguageModelV3` (AI SDK 6 provider packages) is taken
   * too, through `asLanguageModelV4`.
   */
  model: LanguageModelV4 | LanguageModelV3;
  /** The adapter's provider id (journaled with every response). Default: the model's `provider`, e.g. `google.generative-ai`. */
  provider?: string;
  /** Call `doStream` (default true) or `doGenerate`. The result is the same; `onStreamPart` sees the deltas either way. */
  stream?: boolean;
  /** Overrides what is read from the model's declarations (context size, parallel calls, …). */
  capabilities?: Partial<ProviderCapabilities>;
  /** Extra HTTP headers for every call (the specification's `headers`). */
  headers?: Record<string, string>;
  /** For HTTP-date `retry-after` headers. Default `Date.now`. */
  now?: () => number;
}

/** A `ProviderAdapterV1` over an AI SDK language model. */
export interface AiSdkProvider extends ProviderAdapterV1 {
  /** The wrapped model (a V3 model seen as V4). */
  readonly model: LanguageModelV4;
  /**
   * Runs the admission check alone: the warnings for settings that would be dropped, or a
   * PROVIDER_ADMISSION_REJECTED throw. `generate` runs it before any call.
   */
  admit(request: ModelRequest): string[];
}

async function* partsOf(stream: ReadableStream<LanguageModelV4StreamPart>): AsyncGenerator<LanguageModelV4StreamPart> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    // Stops the body when the loop ends early (an emit that threw); a no-op after the end.
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * Bridges any Vercel AI SDK language model (specification `LanguageModelV4` of
 * `@ai-sdk/provider` 4: Google, Mistral, Bedrock, Ollama, OpenAI-compatible servers, …) to
 * Yoke. Requests become the specification's call options; the stream (`doStream`) is folded
 * into a normalized response only once its `finish` part arrived; failures become the same
 * YokeError codes as every other adapter. `doStream` and `doGenerate` do not retry (the AI
 * SDK's retries live in `generateText`/`streamText`, which the bridge does not call): the
 * runtime owns retries.
 *
 * @example
 * ```ts
 * import { createAiSdkProvider } from "@yoke/provider-ai-sdk";
 * import { google } from "@ai-sdk/google";
 * const provider = createAiSdkProvider({ model: google("gemini-2.5-flash"), capabilities: { contextWindow: 1_048_576 } });
 * const response = await provider.generate({ messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }], tools: [] });
 * ```
 */
export function createAiSdkProvider(options: AiSdkProviderOptions): AiSdkProvider {
  const version = (options.model as { specificationVersion?: unknown } | undefined)?.specificationVersion;
  if (version !== "v4" && version !== "v3") {
    throw new YokeError("CONFIG_INVALID", "createAiSdkProvider takes a language model of specification v4 or v3 (@ai-sdk/provider 4 or 3)", {
      details: { specificationVersion: typeof version === "string" ? version : null },
    });
  }
  const model = options.model.specificationVersion === "v3" ? asLanguageModelV4(options.model) : options.model;
  const provider = options.provider ?? model.provider;
  const modelId = model.modelId;
  const stream = options.stream ?? true;
  const now = options.now ?? Date.now;
  const capabilities = aiSdkCapabilities(model, options.capabilities);
  const supportedUrls = declaredSupportedUrls(model);
  const target = { provider, modelId, capabilities, ...(supportedUrls === undefined ? {} : { supportedUrls }) };
  const admit = (request: ModelRequest) => admitAiSdkRequest(request, readAiSdkOptions(request), target);

  const finish = (folded: FoldedResult, requestId: string | undefined, warnings: readonly string[]): ModelResponse => {
    const context = { provider, signal: undefined, streamStarted: true, now, requestId };
    if (folded.error !== undefined) throw aiSdkError(folded.error.error, context);
    const unified = folded.finishReason?.unified;
    if (unified === undefined || unified === "interrupted") {
      const message = unified === undefined ? "the response stream ended without a finish part" : "the provider stream ended without a completion signal";
      throw withRequestId(
        new YokeError("PROVIDER_STREAM_CUT", message, { details: { provider, ...(unified === undefined ? {} : { finishReason: unified }) } }),
        requestId,
      );
    }
    if (unified === "error") {
      throw withRequestId(
        new YokeError("PROVIDER_UNAVAILABLE", "the model finished with an error", {
          details: { provider, finishReason: unified, rawFinishReason: folded.finishReason?.raw ?? null },
        }),
        requestId,
      );
    }
    return mapFolded(folded, { provider, modelId, requestId }, warnings);
  };

  const run = async (request: ModelRequest, { signal, onStreamPart }: GenerateOptions): Promise<ModelResponse> => {
    const requestOptions = readAiSdkOptions(request);
    const warnings = admitAiSdkRequest(request, requestOptions, target);
    if (signal?.aborted)
      throw new YokeError("CANCELLED", `the ${provider} call was cancelled before it was sent`, { cause: signal.reason, details: { provider } });
    const callOptions = toCallOptions(request, withResponseFormat(request, requestOptions, capabilities), signal, provider);
    if (options.headers !== undefined) callOptions.headers = { ...options.headers };
    const before = { provider, signal, streamStarted: false, now };
    const folder = new StreamFolder(onStreamPart, provider);
    if (!stream) {
      const result = await Promise.resolve(model.doGenerate(callOptions)).catch((error: unknown) => {
        throw aiSdkError(error, before);
      });
      const requestId = requestIdOf(result.response?.headers);
      for (const warning of result.warnings) folder.result.warnings.push(warningText(warning));
      if (result.response?.id !== undefined) folder.result.id = result.response.id;
      if (result.response?.modelId !== undefined) folder.result.modelId = result.response.modelId;
      folder.pushContent(result.content);
      folder.push({
        type: "finish",
        finishReason: result.finishReason,
        usage: result.usage,
        ...(result.providerMetadata === undefined ? {} : { providerMetadata: result.providerMetadata }),
      });
      return finish(folder.result, requestId, warnings);
    }
    const result = await Promise.resolve(model.doStream(callOptions)).catch((error: unknown) => {
      throw aiSdkError(error, before);
    });
    const requestId = requestIdOf(result.response?.headers);
    try {
      // After the finish part the stream is still read to its end (an `error` part may follow).
      for await (const part of partsOf(result.stream)) folder.push(part);
    } catch (error) {
      throw aiSdkError(error, { ...before, streamStarted: true, requestId });
    }
    return finish(folder.result, requestId, warnings);
  };

  return {
    specificationVersion: "v1",
    provider,
    modelId,
    model,
    capabilities,
    admit,
    async generate(request, generateOptions = {}) {
      // A model may end its stream quietly when its request is aborted: cancellable names the cause.
      const response = await cancellable(provider, generateOptions.signal, () => run(request, generateOptions));
      // The view learns that a refused response's calls will not run before it learns it ended.
      for (const part of response.content)
        if (part.type === "tool-call-withheld") generateOptions.onStreamPart?.({ type: "tool-call-withheld", toolCallId: part.toolCallId });
      generateOptions.onStreamPart?.({ type: "finish", response });
      return response;
    },
  };
}
