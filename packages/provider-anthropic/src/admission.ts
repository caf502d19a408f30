import { YokeError, type ModelRequest } from "@yoke/protocol";
import type { AnthropicModelFamily } from "./capabilities.js";
import type { AnthropicRequestOptions } from "./provider-options.js";

/** The output limit sent when the request names none (plus the thinking budget, if any). */
export const DEFAULT_MAX_TOKENS = 4_096;

/**
 * Decides, before any network call, whether the target can represent the request: a system
 * message after the conversation started (Messages takes one system prompt), tool calls or a
 * thinking budget the model cannot honour, an output schema, a token limit past the model's.
 * Returns warnings for settings it drops.
 */
export function admitAnthropicRequest(
  request: ModelRequest,
  options: AnthropicRequestOptions & { structuredOutput?: unknown },
  target: { modelId: string; family: AnthropicModelFamily },
): string[] {
  const { capabilities, thinking } = target.family;
  const reject = (reason: string) =>
    new YokeError("PROVIDER_ADMISSION_REJECTED", `${target.modelId} cannot take this request: ${reason}`, {
      details: { provider: "anthropic", model: target.modelId, reason },
    });
  const warnings: string[] = [];
  const firstOther = request.messages.findIndex((message) => message.role !== "system");
  if (firstOther >= 0 && request.messages.slice(firstOther).some((message) => message.role === "system")) {
    throw reject("a system message after the conversation started (the Messages API takes one system prompt)");
  }
  if (request.tools.length > 0 && !capabilities.toolCalls) throw reject("the model does not call tools");
  if (request.toolChoice === "required" && request.tools.length === 0) throw reject("toolChoice is required but no tools are offered");
  if (options.structuredOutput !== undefined) throw reject("structured output is not available through this adapter");
  const budget = options.thinkingBudgetTokens;
  if (budget !== undefined && !thinking) throw reject("the model has no extended thinking");
  const maxTokens = request.maxOutputTokens ?? DEFAULT_MAX_TOKENS + (budget ?? 0);
  if (maxTokens > capabilities.maxOutputTokens) throw reject(`maxOutputTokens ${maxTokens} exceeds the model's ${capabilities.maxOutputTokens}`);
  if (budget !== undefined && budget >= maxTokens) throw reject(`the thinking budget ${budget} must be below maxOutputTokens ${maxTokens}`);
  if (budget !== undefined && request.temperature !== undefined) warnings.push("temperature cannot be set with extended thinking and was not sent");
  if (budget !== undefined && request.toolChoice === "required") throw reject("extended thinking allows toolChoice auto or none only");
  return warnings;
}
