/**
 * @yoke/provider-anthropic — Anthropic models as a Yoke `ProviderAdapterV1`, over the
 * official `@anthropic-ai/sdk` (a peer dependency): the Messages API, streamed; tool_use /
 * tool_result pairing; `pause_turn` and `refusal` (a refused message's calls are withheld,
 * never executable); server tools (web search, web fetch) with
 * their blocks kept verbatim; tool calls cut by `max_tokens` as `tool-call-truncated`; stop
 * sequences and strict tools; thinking blocks kept with their
 * signatures across turns; a prompt-cache breakpoint at the request's stable-prefix
 * boundary; a capability matrix per model family and an admission check before any call.
 */
export { createAnthropicProvider } from "./anthropic-provider.js";
export type { AnthropicProvider, AnthropicProviderOptions } from "./anthropic-provider.js";
export { ANTHROPIC_MODEL_FAMILIES, anthropicModelFamily } from "./capabilities.js";
export type { AnthropicModelFamily } from "./capabilities.js";
export { ANTHROPIC_SERVER_TOOL_TYPES } from "./server-tools.js";
export type { AnthropicRequestOptions } from "./provider-options.js";
export type { AnthropicClientLike, AnthropicConnection } from "./transport.js";
export { anthropicWireBody } from "./wire-body.js";
export type { AnthropicWireTarget } from "./wire-body.js";
