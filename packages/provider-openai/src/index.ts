/**
 * @yoke/provider-openai — OpenAI models as a Yoke `ProviderAdapterV1`, over the official
 * `openai` SDK (a peer dependency): the Responses API by default, Chat Completions on
 * request; streaming, parallel tool calls, strict structured output, reasoning items carried
 * across turns, a capability matrix per model family, and an admission check that refuses
 * what the model cannot represent before any network call.
 */
export { createOpenAIProvider } from "./openai-provider.js";
export type { OpenAIProvider, OpenAIProviderOptions } from "./openai-provider.js";
export type { OpenAIApi } from "./admission.js";
export { OPENAI_MODEL_FAMILIES, openAIModelFamily } from "./capabilities.js";
export type { OpenAIModelFamily } from "./capabilities.js";
export type { OpenAIRequestOptions } from "./provider-options.js";
export { strictSchemaViolations } from "./strict-schema.js";
export type { StrictSchemaViolation } from "./strict-schema.js";
export type { OpenAIClientLike, OpenAIConnection } from "./transport.js";
export { openAIWireBody } from "./wire-body.js";
export type { OpenAIWireTarget } from "./wire-body.js";
