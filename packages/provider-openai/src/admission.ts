import { YokeError, type ModelRequest } from "@yoke/protocol";
import { userMediaIssue } from "@yoke/protocol/provider-utils";
import type { OpenAIApi, OpenAIModelFamily } from "./capabilities.js";
import type { OpenAIRequestOptions } from "./provider-options.js";
import { strictSchemaViolations } from "./strict-schema.js";
import { openAIMediaIssue } from "./user-content.js";

export type { OpenAIApi } from "./capabilities.js";

/**
 * Decides, before any network call, whether the target can represent the request. Returns
 * the warnings for settings it will drop; throws PROVIDER_ADMISSION_REJECTED when dropping
 * one would break a constraint (a tool call the model cannot make, an output schema or a
 * strict tool's input schema strict mode would not enforce, stop sequences the endpoint
 * has no parameter for or more than it takes, a token limit past the model's, an image or
 * file the model or the endpoint does not take, naming the part).
 */
export function admitOpenAIRequest(
  request: ModelRequest,
  options: OpenAIRequestOptions,
  target: { modelId: string; api: OpenAIApi; family: OpenAIModelFamily },
): string[] {
  const { capabilities, reasoning } = target.family;
  const reject = (reason: string, details: Record<string, unknown> = {}) =>
    new YokeError("PROVIDER_ADMISSION_REJECTED", `${target.modelId} cannot take this request: ${reason}`, {
      details: { provider: "openai", model: target.modelId, api: target.api, reason, ...details },
    });
  const warnings: string[] = [];
  const media = userMediaIssue(request, capabilities.inputModalities, (part) => openAIMediaIssue(part, target.api));
  if (media !== undefined) throw reject(media.reason, media.details);
  if (request.tools.length > 0 && !capabilities.toolCalls) throw reject("the model does not call tools");
  if (request.toolChoice === "required" && request.tools.length === 0) throw reject("toolChoice is required but no tools are offered");
  if (options.parallelToolCalls === true && !capabilities.parallelToolCalls) throw reject("the model does not make parallel tool calls");
  if (request.maxOutputTokens !== undefined && request.maxOutputTokens > capabilities.maxOutputTokens) {
    throw reject(`maxOutputTokens ${request.maxOutputTokens} exceeds the model's ${capabilities.maxOutputTokens}`);
  }
  const stops = request.stopSequences?.length ?? 0;
  if (stops > 0) {
    if (target.api === "responses") throw reject('the Responses API has no stop sequences (use api: "chat")', { stopSequences: stops });
    const max = capabilities.maxStopSequences ?? 0;
    if (stops > max)
      throw reject(max === 0 ? "the model takes no stop sequences" : `${stops} stop sequences exceed the model's ${max}`, { stopSequences: stops });
  }
  const strictTools = request.tools.filter((tool) => tool.strict === true);
  if (strictTools.length > 0) {
    if (capabilities.strictTools !== true) throw reject("the model has no strict function tools", { tools: strictTools.map((tool) => tool.name) });
    const violations = strictTools.flatMap((tool) => strictSchemaViolations(tool.inputSchema).map((violation) => ({ tool: tool.name, ...violation })));
    if (violations.length > 0) {
      const listed = violations.map((v) => `${v.tool} ${v.path || "/"}: ${v.message}`).join("; ");
      throw reject(`a strict tool's input schema is outside the strict JSON-schema subset (${listed})`, { violations });
    }
    // OpenAI's function-calling guide: strict mode does not hold for parallel calls.
    if (options.parallelToolCalls !== false && capabilities.parallelToolCalls) {
      warnings.push("strict tools: parallel tool calls may not match their schemas; set providerOptions.openai.parallelToolCalls to false for the guarantee");
    }
  }
  if (options.structuredOutput !== undefined) {
    if (capabilities.structuredOutput === "none") throw reject("the model has no structured output");
    // A non-strict schema (from `responseFormat`) is asked for, not enforced: nothing to check.
    const violations = options.structuredOutput.strict === false ? [] : strictSchemaViolations(options.structuredOutput.schema);
    if (violations.length > 0) {
      throw reject(`the output schema is outside the strict JSON-schema subset (${violations.map((v) => `${v.path || "/"}: ${v.message}`).join("; ")})`, {
        violations,
      });
    }
  }
  if (request.reasoningEffort !== undefined && !reasoning) throw reject(`the model has no reasoning effort (asked for ${request.reasoningEffort})`);
  if (reasoning && request.temperature !== undefined) warnings.push("temperature is not supported by reasoning models and was not sent");
  if (target.api === "chat" && request.messages.some((message) => message.role === "assistant" && message.content.some((part) => part.type === "reasoning"))) {
    warnings.push("Chat Completions cannot carry reasoning items across turns; they were not sent");
  }
  if (target.api === "chat" && options.store !== undefined) warnings.push("store applies to the Responses API only and was not sent");
  return warnings;
}
