import { YokeError, type ModelRequest } from "@yoke/protocol";
import { userMediaIssue } from "@yoke/protocol/provider-utils";
import type { AnthropicModelFamily } from "./capabilities.js";
import type { AnthropicRequestOptions } from "./provider-options.js";
import { strictSchemaProblem } from "./strict-schema.js";
import { anthropicMediaIssue } from "./user-content.js";

/** Strict tools one request may carry (Anthropic's structured-outputs limit). */
const MAX_STRICT_TOOLS = 20;

/** The output limit sent when the request names none (plus the thinking budget, if any). */
export const DEFAULT_MAX_TOKENS = 4_096;

/**
 * Decides, before any network call, whether the target can represent the request: a system
 * message after the conversation started (Messages takes one system prompt), tool calls or a
 * thinking budget the model cannot honour, an output schema, a token limit past the model's,
 * more stop sequences than `capabilities.maxStopSequences`, a strict tool on a model without
 * strict tool use (or with a schema strict mode cannot take), a server tool of another
 * provider or of a type `capabilities.serverTools` does not list, an image or document the
 * model or the API does not take (naming the part). Returns warnings for
 * settings it drops.
 */
export function admitAnthropicRequest(
  request: ModelRequest,
  options: AnthropicRequestOptions & { structuredOutput?: unknown },
  target: { modelId: string; family: AnthropicModelFamily },
): string[] {
  const { capabilities, thinking } = target.family;
  const reject = (reason: string, details: Record<string, unknown> = {}) =>
    new YokeError("PROVIDER_ADMISSION_REJECTED", `${target.modelId} cannot take this request: ${reason}`, {
      details: { provider: "anthropic", model: target.modelId, reason, ...details },
    });
  const warnings: string[] = [];
  const media = userMediaIssue(request, capabilities.inputModalities, anthropicMediaIssue);
  if (media !== undefined) throw reject(media.reason, media.details);
  const firstOther = request.messages.findIndex((message) => message.role !== "system");
  if (firstOther >= 0 && request.messages.slice(firstOther).some((message) => message.role === "system")) {
    throw reject("a system message after the conversation started (the Messages API takes one system prompt)");
  }
  if (request.reasoningEffort !== undefined) {
    throw reject(`Claude models take no reasoning effort (asked for ${request.reasoningEffort}); set providerOptions.anthropic.thinkingBudgetTokens`);
  }
  const serverTools = request.serverTools ?? [];
  if ((request.tools.length > 0 || serverTools.length > 0) && !capabilities.toolCalls) throw reject("the model does not call tools");
  if (request.toolChoice === "required" && request.tools.length === 0 && serverTools.length === 0)
    throw reject("toolChoice is required but no tools are offered");
  for (const spec of serverTools) {
    if (spec.provider !== "anthropic") throw reject(`server tool ${spec.name} is a ${spec.provider} tool`);
    if (!(capabilities.serverTools ?? []).includes(spec.type))
      throw reject(`server tool type ${spec.type} is not one the adapter declares (${(capabilities.serverTools ?? []).join(", ") || "none"})`);
    if (spec.options !== undefined && ("type" in spec.options || "name" in spec.options))
      throw reject(`server tool ${spec.name}: options may not set type or name`);
  }
  const strict = request.tools.filter((tool) => tool.strict === true);
  if (strict.length > 0 && capabilities.strictTools !== true)
    throw reject(`strict tools (${strict.map((tool) => tool.name).join(", ")}) need a model with strict tool use`);
  if (strict.length > MAX_STRICT_TOOLS) throw reject(`${strict.length} strict tools; the API takes at most ${MAX_STRICT_TOOLS}`);
  for (const tool of strict) {
    const problem = strictSchemaProblem(tool.inputSchema);
    if (problem !== undefined) throw reject(`strict tool ${tool.name}: ${problem}`);
  }
  const stops = request.stopSequences?.length ?? 0;
  if (stops > (capabilities.maxStopSequences ?? 0)) throw reject(`${stops} stop sequences; the model takes at most ${capabilities.maxStopSequences ?? 0}`);
  if (options.structuredOutput !== undefined) throw reject("structured output is not available through this adapter");
  // The runtime validates the answer against its own schema whatever the provider does.
  if (request.responseFormat !== undefined) warnings.push("responseFormat was not sent: structured output is not available through this adapter");
  const budget = options.thinkingBudgetTokens;
  if (budget !== undefined && !thinking) throw reject("the model has no extended thinking");
  const maxTokens = request.maxOutputTokens ?? DEFAULT_MAX_TOKENS + (budget ?? 0);
  if (maxTokens > capabilities.maxOutputTokens) throw reject(`maxOutputTokens ${maxTokens} exceeds the model's ${capabilities.maxOutputTokens}`);
  if (budget !== undefined && budget >= maxTokens) throw reject(`the thinking budget ${budget} must be below maxOutputTokens ${maxTokens}`);
  if (budget !== undefined && request.temperature !== undefined) warnings.push("temperature cannot be set with extended thinking and was not sent");
  if (budget !== undefined && request.toolChoice === "required") throw reject("extended thinking allows toolChoice auto or none only");
  return warnings;
}
