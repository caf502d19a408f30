import type { AssistantPart, ModelResponse, StopReason, WithheldToolCallPart } from "./model.js";

/** The stop reasons under which no part of a response may run. */
export const REFUSAL_STOP_REASONS: readonly StopReason[] = Object.freeze(["refusal", "content_filter"]);

/**
 * Whether a response is a refusal: stop reason `refusal` or `content_filter`, or a `refusal`
 * part. Nothing in such a response is executable, whatever else it carries: the model (or a
 * filter) stopped it, so a call in it, finished or not, is not a call the model stands by.
 * One rule for adapters, the fold and the runtime.
 *
 * @example
 * ```ts
 * isRefusedResponse({ stopReason: "refusal", content: [toolCall] }); // true
 * isRefusedResponse({ stopReason: "tool_use", content: [toolCall] }); // false
 * ```
 */
export function isRefusedResponse(response: Pick<ModelResponse, "stopReason" | "content">): boolean {
  return REFUSAL_STOP_REASONS.includes(response.stopReason) || response.content.some((part) => part.type === "refusal");
}

/**
 * The response with every `tool-call` part of a refused one (see `isRefusedResponse`) turned
 * into a `tool-call-withheld` part, in place and with its raw arguments; any other response
 * unchanged (the same object). Adapters map with it; the runtime applies it again before it
 * journals a response, so an adapter that forgets cannot get a tool run.
 *
 * @example
 * ```ts
 * withholdRefusedCalls({ ...response, stopReason: "content_filter" }).content;
 * // [{ type: "tool-call-withheld", toolCallId: "call_1", toolName: "get_weather", rawArguments: '{"city":"Pa' }]
 * ```
 */
export function withholdRefusedCalls(response: ModelResponse): ModelResponse {
  if (!isRefusedResponse(response) || !response.content.some((part) => part.type === "tool-call")) return response;
  return { ...response, content: response.content.map(withheld) };
}

function withheld(part: AssistantPart): AssistantPart {
  if (part.type !== "tool-call") return part;
  const kept: WithheldToolCallPart = { type: "tool-call-withheld", toolCallId: part.toolCallId, toolName: part.toolName, rawArguments: part.rawArguments };
  if (part.providerMetadata !== undefined) kept.providerMetadata = part.providerMetadata;
  return kept;
}
