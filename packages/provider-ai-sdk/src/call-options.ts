import type { LanguageModelV4CallOptions, LanguageModelV4Message, SharedV4ProviderOptions } from "@ai-sdk/provider";
import { YokeError, parseToolArguments, type AssistantPart, type ModelRequest, type ProviderMetadata } from "@yoke/protocol";
import { passThroughOptions, type AiSdkRequestOptions } from "./provider-options.js";
import { providerTools, serverToolPrompt } from "./server-tools.js";
import { toolResultOutput } from "./tool-result-output.js";
import { userPromptPart } from "./user-content.js";

type AssistantContent = Extract<LanguageModelV4Message, { role: "assistant" }>["content"][number];

// What a part brought back as `providerMetadata` is what the provider wants again as
// `providerOptions` (reasoning signatures, Gemini thought signatures, …).
const withOptions = <T extends object>(part: T, metadata: ProviderMetadata | undefined): T =>
  metadata === undefined ? part : { ...part, providerOptions: metadata as SharedV4ProviderOptions };

function assistantPart(part: AssistantPart, provider: string): AssistantContent[] {
  switch (part.type) {
    case "text":
      return [{ type: "text", text: part.text }];
    // The specification's prompt has no refusal part: the refusal goes back as what the model said.
    case "refusal":
      return [{ type: "text", text: part.text }];
    // A call the output limit cut, or one of a refused response, is never sent back as a call.
    case "tool-call-truncated":
    case "tool-call-withheld":
      return [];
    // This provider's server tool parts go back as it sent them; another provider's mean
    // nothing to this model.
    case "server-tool-call":
    case "server-tool-result":
      return part.provider === provider ? serverToolPrompt(part) : [];
    case "reasoning":
      // Summary parts go back apart, as the model wrote them (one reasoning part each).
      if (part.summary !== undefined && part.summary.length > 0) {
        return part.summary.map((text) => withOptions({ type: "reasoning", text }, part.providerMetadata));
      }
      return [withOptions({ type: "reasoning", text: part.text }, part.providerMetadata)];
    case "tool-call": {
      // The input is parsed again from the raw text the model wrote, not taken from
      // `arguments`: a journal stores `arguments` as canonical JSON (keys sorted), so a resumed
      // run would re-send the call with its keys reordered and break the prompt-cache prefix.
      // A call whose arguments were not JSON goes back as that raw text.
      const parsed = parseToolArguments(part.rawArguments);
      return [
        withOptions(
          { type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, input: parsed.ok ? parsed.value : part.rawArguments },
          part.providerMetadata,
        ),
      ];
    }
  }
}

/** The specification's prompt for Yoke's messages; `provider` is the bridge's provider id (its server tool parts are sent back). */
export function toPrompt(messages: ModelRequest["messages"], provider: string): LanguageModelV4Message[] {
  return messages.flatMap((message): LanguageModelV4Message[] => {
    switch (message.role) {
      case "system":
        return [{ role: "system", content: message.content }];
      case "user":
        return [{ role: "user", content: message.content.map(userPromptPart) }];
      case "assistant": {
        // An assistant message left with nothing to send (only a cut call, or another
        // provider's server tool blocks) is not sent: providers reject an empty one.
        const content = message.content.flatMap((part) => assistantPart(part, provider));
        return content.length === 0 ? [] : [{ role: "assistant", content }];
      }
      case "tool":
        return [
          {
            role: "tool",
            content: message.content.map((part) => ({
              type: "tool-result",
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              output: toolResultOutput(part.result),
            })),
          },
        ];
      default:
        throw new YokeError("INTERNAL", `a message with role ${JSON.stringify((message as { role: unknown }).role)} has no prompt form`);
    }
  });
}

/**
 * The specification's call options for a normalized request: prompt, function tools with
 * their JSON Schema (and `strict` when the tool asks for it), provider tools for server
 * tools, tool choice, limits, stop sequences, `responseFormat` for structured output, the
 * abort signal, and every `providerOptions` key but the bridge's own.
 */
export function toCallOptions(
  request: ModelRequest,
  options: AiSdkRequestOptions,
  signal: AbortSignal | undefined,
  provider: string,
): LanguageModelV4CallOptions {
  const call: LanguageModelV4CallOptions = { prompt: toPrompt(request.messages, provider) };
  const tools: NonNullable<LanguageModelV4CallOptions["tools"]> = request.tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as never,
    ...(tool.strict === undefined ? {} : { strict: tool.strict }),
  }));
  tools.push(...providerTools(request));
  if (tools.length > 0) call.tools = tools;
  if (request.toolChoice !== undefined) call.toolChoice = { type: request.toolChoice };
  if (request.maxOutputTokens !== undefined) call.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) call.temperature = request.temperature;
  if (options.topP !== undefined) call.topP = options.topP;
  if (options.topK !== undefined) call.topK = options.topK;
  if (options.seed !== undefined) call.seed = options.seed;
  const stopSequences = request.stopSequences ?? options.stopSequences;
  if (stopSequences !== undefined) call.stopSequences = stopSequences;
  if (options.structuredOutput !== undefined) {
    const { schema, name, description } = options.structuredOutput;
    call.responseFormat = {
      type: "json",
      schema: schema as never,
      ...(name === undefined ? {} : { name }),
      ...(description === undefined ? {} : { description }),
    };
  }
  const providerOptions = passThroughOptions(request);
  if (providerOptions !== undefined) call.providerOptions = providerOptions as SharedV4ProviderOptions;
  if (signal !== undefined) call.abortSignal = signal;
  return call;
}
