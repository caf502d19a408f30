import type { JsonValue, ModelRequest, ProviderCapabilities } from "@yoke/protocol";
import { admitOpenAIRequest, type OpenAIApi } from "./admission.js";
import { openAICapabilities, openAIModelFamily } from "./capabilities.js";
import { chatBody } from "./chat-request.js";
import { readOpenAIOptions } from "./provider-options.js";
import { responsesBody } from "./responses-request.js";

/** What fixes the wire body besides the request: the adapter's own options (`createOpenAIProvider`'s). */
export interface OpenAIWireTarget {
  readonly model: string;
  /** Default `responses`. */
  readonly api?: OpenAIApi;
  /** Default true. */
  readonly stream?: boolean;
  readonly capabilities?: Partial<ProviderCapabilities>;
}

/**
 * The JSON body an OpenAI adapter built with `target` sends for `request`: the provider's
 * wire form, rebuilt with no network and no SDK call (the same functions `generate` uses,
 * after the same admission check, which throws PROVIDER_ADMISSION_REJECTED). With a request
 * rebuilt from a journal, this is the body the model received.
 *
 * @example
 * ```ts
 * const { request } = await reconstructRequest(journal, scope, 3);
 * const body = openAIWireBody(request, { model: "gpt-5-mini" }); // { model, input, tools, … }
 * ```
 */
export function openAIWireBody(request: ModelRequest, target: OpenAIWireTarget): { [key: string]: JsonValue } {
  const api = target.api ?? "responses";
  const row = openAIModelFamily(target.model);
  const family = { ...row, capabilities: { ...openAICapabilities(row, api), ...target.capabilities } };
  const resolved = { modelId: target.model, api, family, stream: target.stream ?? true };
  const options = readOpenAIOptions(request);
  admitOpenAIRequest(request, options, resolved);
  return api === "responses" ? responsesBody(request, options, resolved) : chatBody(request, options, resolved);
}
