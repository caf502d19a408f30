import type { JsonValue, ModelRequest, ProviderCapabilities } from "@yoke/protocol";
import { admitAnthropicRequest } from "./admission.js";
import { anthropicModelFamily } from "./capabilities.js";
import { messagesBody } from "./messages-request.js";
import { readAnthropicOptions } from "./provider-options.js";

/** What fixes the wire body besides the request: the adapter's own options (`createAnthropicProvider`'s). */
export interface AnthropicWireTarget {
  readonly model: string;
  /** Default true. */
  readonly stream?: boolean;
  readonly capabilities?: Partial<ProviderCapabilities>;
}

/**
 * The JSON body an Anthropic adapter built with `target` sends for `request` (Messages API):
 * the provider's wire form, rebuilt with no network and no SDK call (the same functions
 * `generate` uses, after the same admission check, which throws PROVIDER_ADMISSION_REJECTED).
 * With a request rebuilt from a journal, this is the body the model received.
 *
 * @example
 * ```ts
 * const { request } = await reconstructRequest(journal, scope, 3);
 * const body = anthropicWireBody(request, { model: "claude-sonnet-4-6" }); // { model, max_tokens, system, messages, … }
 * ```
 */
export function anthropicWireBody(request: ModelRequest, target: AnthropicWireTarget): { [key: string]: JsonValue } {
  const row = anthropicModelFamily(target.model);
  const family = { ...row, capabilities: { ...row.capabilities, ...target.capabilities } };
  const resolved = { modelId: target.model, family, stream: target.stream ?? true };
  const options = readAnthropicOptions(request);
  admitAnthropicRequest(request, options, resolved);
  return messagesBody(request, options, resolved);
}
