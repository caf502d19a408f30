import { YokeError, type ModelRequest, type ProviderCapabilities } from "@yoke/protocol";
import { userMediaIssue } from "@yoke/protocol/provider-utils";
import type { AiSdkRequestOptions } from "./provider-options.js";
import { PROVIDER_TOOL_ID } from "./server-tools.js";
import { aiSdkMediaIssue, type SupportedUrls } from "./user-content.js";

/**
 * Decides, before any call, whether the wrapped model can represent the request as its
 * capability matrix describes it. Returns warnings for what is dropped; throws
 * PROVIDER_ADMISSION_REJECTED when dropping it would break a constraint (tools the model
 * cannot call, an output schema it cannot enforce, a token limit past its own, more stop
 * sequences than `maxStopSequences`, a strict tool without `strictTools`, a server tool of
 * another provider or not listed in `serverTools`, an image or file of a modality the model
 * does not declare or by a URL its `supportedUrls` does not match, naming the part).
 */
export function admitAiSdkRequest(
  request: ModelRequest,
  options: AiSdkRequestOptions,
  target: { provider: string; modelId: string; capabilities: ProviderCapabilities; supportedUrls?: SupportedUrls },
): string[] {
  const { capabilities } = target;
  const reject = (reason: string, details: Record<string, unknown> = {}) =>
    new YokeError("PROVIDER_ADMISSION_REJECTED", `${target.modelId} cannot take this request: ${reason}`, {
      details: { provider: target.provider, model: target.modelId, reason, ...details },
    });
  const warnings: string[] = [];
  const media = userMediaIssue(request, capabilities.inputModalities, (part) => aiSdkMediaIssue(part, target.supportedUrls));
  if (media !== undefined) throw reject(media.reason, media.details);
  if (request.tools.length > 0 && !capabilities.toolCalls) throw reject("the model does not call tools");
  if (request.toolChoice === "required" && request.tools.length === 0) throw reject("toolChoice is required but no tools are offered");
  if (request.maxOutputTokens !== undefined && request.maxOutputTokens > capabilities.maxOutputTokens) {
    throw reject(`maxOutputTokens ${request.maxOutputTokens} exceeds the model's ${capabilities.maxOutputTokens}`);
  }
  if (request.reasoningEffort !== undefined) {
    throw reject(`the AI SDK call options have no reasoning effort (asked for ${request.reasoningEffort}); set it in providerOptions for ${target.provider}`);
  }
  const stops = request.stopSequences ?? options.stopSequences ?? [];
  if (stops.length > (capabilities.maxStopSequences ?? 0)) {
    throw reject(
      `${stops.length} stop sequences exceed the model's ${capabilities.maxStopSequences ?? 0} (set capabilities.maxStopSequences if it takes more)`,
    );
  }
  const strict = request.tools.find((tool) => tool.strict === true);
  if (strict !== undefined && capabilities.strictTools !== true) {
    throw reject(`tool ${strict.name} is strict but the model declares no strict tool mode (set capabilities.strictTools if it has one)`);
  }
  for (const tool of request.serverTools ?? []) {
    if (tool.provider !== target.provider) throw reject(`server tool ${tool.name} is declared for ${tool.provider}, not ${target.provider}`);
    if (!PROVIDER_TOOL_ID.test(tool.type)) throw reject(`server tool ${tool.name}: ${tool.type} is not a provider tool id (<provider>.<tool>)`);
    if (!(capabilities.serverTools ?? []).includes(tool.type)) {
      throw reject(`server tool ${tool.type} is not in the model's capabilities.serverTools (list the provider tools it takes there)`);
    }
  }
  if (options.structuredOutput !== undefined && capabilities.structuredOutput === "none") {
    throw reject("the model declares no structured output (set capabilities.structuredOutput if it has one)");
  }
  if (options.structuredOutput === undefined && request.responseFormat !== undefined && capabilities.structuredOutput === "none") {
    warnings.push("responseFormat was not sent: the model declares no structured output (set capabilities.structuredOutput if it has one)");
  }
  return warnings;
}
