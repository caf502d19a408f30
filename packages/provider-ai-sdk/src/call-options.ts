import type { LanguageModelV4CallOptions, LanguageModelV4Message, SharedV4ProviderOptions } from "@ai-sdk/provider";
import { parseToolArguments, type AssistantPart, type ModelRequest, type ProviderMetadata } from "@yoke/protocol";
import { passThroughOptions, type AiSdkRequestOptions } from "./provider-options.js";
import { toolResultOutput } from "./tool-result-output.js";

type AssistantContent = Extract<LanguageModelV4Message, { role: "assistant" }>["content"][number];

// What a part brought back as `providerMetadata` is what the provider wants again as
// `providerOptions` (reasoning signatures, Gemini thought signatures, …).
const withOptions = <T extends object>(part: T, metadata: ProviderMetadata | undefined): T =>
  metadata === undefined ? part : { ...part, providerOptions: metadata as SharedV4ProviderOptions };

function assistantPart(part: AssistantPart): AssistantContent[] {
  switch (part.type) {
    case "text":
      return [{ type: "text", text: part.text }];
    // The specification's prompt has no refusal part: the refusal goes back as what the model said.
    case "refusal":
      return [{ type: "text", text: part.text }];
    // A call the output limit cut is never sent back as a call; another provider's server
    // tool blocks mean nothing to this model.
    case "tool-call-truncated":
    case "server-tool-call":
    case "server-tool-result":
      return [];
    case "reasoning":
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

/** The specification's prompt for Yoke's messages. */
export function toPrompt(messages: ModelRequest["messages"]): LanguageModelV4Message[] {
  return messages.map((message): LanguageModelV4Message => {
    switch (message.role) {
      case "system":
        return { role: "system", content: message.content };
      case "user":
        return { role: "user", content: message.content.map((part) => ({ type: "text", text: part.text })) };
      case "assistant":
        return { role: "assistant", content: message.content.flatMap(assistantPart) };
      case "tool":
        return {
          role: "tool",
          content: message.content.map((part) => ({ type: "tool-result", toolCallId: part.toolCallId, toolName: part.toolName, output: toolResultOutput(part.result) })),
        };
    }
  });
}

/**
 * The specification's call options for a normalized request: prompt, function tools with
 * their JSON Schema, tool choice, limits, `responseFormat` for structured output, the abort
 * signal, and every `providerOptions` key but the bridge's own.
 */
export function toCallOptions(request: ModelRequest, options: AiSdkRequestOptions, signal: AbortSignal | undefined): LanguageModelV4CallOptions {
  const call: LanguageModelV4CallOptions = { prompt: toPrompt(request.messages) };
  if (request.tools.length > 0) {
    call.tools = request.tools.map((tool) => ({ type: "function", name: tool.name, description: tool.description, inputSchema: tool.inputSchema as never }));
  }
  if (request.toolChoice !== undefined) call.toolChoice = { type: request.toolChoice };
  if (request.maxOutputTokens !== undefined) call.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) call.temperature = request.temperature;
  if (options.topP !== undefined) call.topP = options.topP;
  if (options.topK !== undefined) call.topK = options.topK;
  if (options.seed !== undefined) call.seed = options.seed;
  if (options.stopSequences !== undefined) call.stopSequences = options.stopSequences;
  if (options.structuredOutput !== undefined) {
    const { schema, name, description } = options.structuredOutput;
    call.responseFormat = { type: "json", schema: schema as never, ...(name === undefined ? {} : { name }), ...(description === undefined ? {} : { description }) };
  }
  const providerOptions = passThroughOptions(request);
  if (providerOptions !== undefined) call.providerOptions = providerOptions as SharedV4ProviderOptions;
  if (signal !== undefined) call.abortSignal = signal;
  return call;
}
