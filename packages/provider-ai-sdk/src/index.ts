/**
 * @yoke/provider-ai-sdk — any Vercel AI SDK language model (the `LanguageModelV4`
 * specification of `@ai-sdk/provider` 4, a peer dependency) as a Yoke `ProviderAdapterV1`:
 * Google, Mistral, Bedrock, Ollama, OpenAI-compatible servers and every other AI SDK
 * provider package drive a Yoke run. Streaming through `doStream`, tool calls with raw and
 * parsed arguments, reasoning carried across turns, usage with cached and reasoning tokens,
 * a capability matrix read from what the model declares, and errors mapped to the same
 * `YokeError` codes as the other adapters.
 */
export { createAiSdkProvider } from "./ai-sdk-provider.js";
export type { AiSdkProvider, AiSdkProviderOptions } from "./ai-sdk-provider.js";
export { asLanguageModelV4 } from "./as-language-model-v4.js";
export { DEFAULT_AI_SDK_CAPABILITIES, aiSdkCapabilities } from "./capabilities.js";
export { aiSdkError } from "./errors.js";
export type { AiSdkErrorContext } from "./errors.js";
export { AI_SDK_OPTIONS_KEY } from "./provider-options.js";
export type { AiSdkRequestOptions } from "./provider-options.js";
