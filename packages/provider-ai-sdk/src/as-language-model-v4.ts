import type { LanguageModelV3, LanguageModelV4, LanguageModelV4GenerateResult, LanguageModelV4StreamResult } from "@ai-sdk/provider";

/**
 * A `LanguageModelV3` (AI SDK 6 provider packages) seen as a `LanguageModelV4`, for the
 * bridge. The bridge sends only call options both versions share (prompt of text, reasoning,
 * tool calls — provider-executed ones too — and text/json/error tool results; function tools
 * with `strict`; provider tools; tool choice; limits; stop sequences; `responseFormat`;
 * provider options; headers; the abort signal), and what a V3 model returns
 * is a subset of what V4 defines (V4 adds the `interrupted` finish reason and a few part
 * types), so the calls pass through unchanged. Other members of the model stay reachable on
 * the original.
 *
 * @example
 * ```ts
 * const provider = createAiSdkProvider({ model: asLanguageModelV4(olderProviderPackage("model-id")) });
 * ```
 */
export function asLanguageModelV4(model: LanguageModelV3): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    get provider() {
      return model.provider;
    },
    get modelId() {
      return model.modelId;
    },
    get supportedUrls() {
      return model.supportedUrls;
    },
    ...((model as { supportsStructuredOutputs?: unknown }).supportsStructuredOutputs === undefined
      ? {}
      : { supportsStructuredOutputs: (model as { supportsStructuredOutputs?: unknown }).supportsStructuredOutputs }),
    doGenerate: (options) => model.doGenerate(options as never) as PromiseLike<LanguageModelV4GenerateResult>,
    doStream: (options) => model.doStream(options as never) as PromiseLike<LanguageModelV4StreamResult>,
  };
}
