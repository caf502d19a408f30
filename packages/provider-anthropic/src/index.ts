/**
 * @yoke/provider-anthropic — Anthropic models as a Yoke `ProviderAdapterV1`, over the
 * official `@anthropic-ai/sdk` (a peer dependency): the Messages API, streamed; tool_use /
 * tool_result pairing; `pause_turn` and `refusal`; thinking blocks kept with their
 * signatures across turns; a prompt-cache breakpoint at the request's stable-prefix
 * boundary; a capability matrix per model family and an admission check before any call.
 */
export { createAnthropicProvider } from "./anthropic-provider.js";
export type { AnthropicProvider, AnthropicProviderOptions } from "./anthropic-provider.js";
export { ANTHROPIC_MODEL_FAMILIES, anthropicModelFamily } from "./capabilities.js";
export type { AnthropicModelFamily } from "./capabilities.js";
export type { AnthropicRequestOptions } from "./provider-options.js";
export type { AnthropicClientLike, AnthropicConnection } from "./transport.js";
