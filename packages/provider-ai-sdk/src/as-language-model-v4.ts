import type {
  LanguageModelV3,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamResult,
} from "@ai-sdk/provider";

/**
 * Call options with each user file part in V3's form: V4 tags a part's data
 * (`{ type: "data", data }`, `{ type: "url", url }`), V3 holds the bytes or the URL itself.
 */
function v3CallOptions(options: LanguageModelV4CallOptions): never {
  const prompt = options.prompt.map((message) => {
    if (message.role !== "user" || !message.content.some((part) => part.type === "file")) return message;
    const content = message.content.map((part) => {
      if (part.type !== "file") return part;
      const data = part.data.type === "url" ? part.data.url : part.data.type === "data" ? part.data.data : undefined;
      return { ...part, data };
    });
    return { ...message, content };
  });
  return { ...options, prompt } as never;
}

/**
 * A `LanguageModelV3` (AI SDK 6 provider packages) seen as a `LanguageModelV4`, for the
 * bridge. The bridge sends only call options both versions share (prompt of text, reasoning,
 * tool calls — provider-executed ones too — text/json/error tool results, and user file
 * parts, whose data is given back its V3 form; function tools
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
    doGenerate: (options) => model.doGenerate(v3CallOptions(options)) as PromiseLike<LanguageModelV4GenerateResult>,
    doStream: (options) => model.doStream(v3CallOptions(options)) as PromiseLike<LanguageModelV4StreamResult>,
  };
}
