import { YokeError, type ModelRequest, type ProviderCapabilities } from "@yoke/protocol";
import type { AiSdkRequestOptions } from "./provider-options.js";

/**
 * Decides, before any call, whether the wrapped model can represent the request as its
 * capability matrix describes it. Returns warnings for what is dropped; throws
 * PROVIDER_ADMISSION_REJECTED when dropping it would break a constraint (tools the model
 * cannot call, an output schema it cannot enforce, a token limit past its own).
 */
export function admitAiSdkRequest(
  request: ModelRequest,
  options: AiSdkRequestOptions,
  target: { provider: string; modelId: string; capabilities: ProviderCapabilities },
): string[] {
  const { capabilities } = target;
  const reject = (reason: string) =>
    new YokeError("PROVIDER_ADMISSION_REJECTED", `${target.modelId} cannot take this request: ${reason}`, {
      details: { provider: target.provider, model: target.modelId, reason },
    });
  const warnings: string[] = [];
  if (request.tools.length > 0 && !capabilities.toolCalls) throw reject("the model does not call tools");
  if (request.toolChoice === "required" && request.tools.length === 0) throw reject("toolChoice is required but no tools are offered");
  if (request.maxOutputTokens !== undefined && request.maxOutputTokens > capabilities.maxOutputTokens) {
    throw reject(`maxOutputTokens ${request.maxOutputTokens} exceeds the model's ${capabilities.maxOutputTokens}`);
  }
  if (options.structuredOutput !== undefined && capabilities.structuredOutput === "none") {
    throw reject("the model declares no structured output (set capabilities.structuredOutput if it has one)");
  }
  return warnings;
}
