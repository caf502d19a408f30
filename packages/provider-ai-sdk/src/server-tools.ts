import type {
  LanguageModelV4Message,
  LanguageModelV4ProviderTool,
  LanguageModelV4ToolCall,
  LanguageModelV4ToolResult,
  LanguageModelV4ToolResultOutput,
  SharedV4ProviderOptions,
} from "@ai-sdk/provider";
import { parseToolArguments, type JsonValue, type ModelRequest, type ServerToolCallPart, type ServerToolResultPart } from "@yoke/protocol";

type AssistantContent = Extract<LanguageModelV4Message, { role: "assistant" }>["content"][number];
type JsonObject = { [key: string]: JsonValue };

/** A provider tool id of the specification: `<provider-id>.<tool-name>`, e.g. `openai.web_search`. */
export const PROVIDER_TOOL_ID = /^[^.\s]+\.\S+$/;

// The specification's parts allow `undefined` members; a journal keeps plain JSON.
const json = (value: unknown): JsonObject => JSON.parse(JSON.stringify(value)) as JsonObject;

/**
 * The specification's provider tools for `request.serverTools` (admission has checked them):
 * `ServerToolSpec.type` is the tool's id, `options` its `args`.
 */
export function providerTools(request: ModelRequest): LanguageModelV4ProviderTool[] {
  return (request.serverTools ?? []).map((tool) => ({
    type: "provider",
    id: tool.type as `${string}.${string}`,
    name: tool.name,
    args: { ...tool.options },
  }));
}

/** A provider-executed `tool-call` part as a server tool call; `raw` is the part verbatim. */
export function serverToolCallOf(part: LanguageModelV4ToolCall, provider: string): ServerToolCallPart {
  const parsed = parseToolArguments(part.input);
  return {
    type: "server-tool-call",
    provider,
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    arguments: parsed.ok ? parsed.value : part.input,
    raw: json(part),
  };
}

/**
 * A provider-executed `tool-result` part as a server tool result; `raw` is the part verbatim
 * and `resultType` the specification's part type (`tool-result`): the specification does not
 * name provider block types.
 */
export function serverToolResultOf(part: LanguageModelV4ToolResult, provider: string): ServerToolResultPart {
  return { type: "server-tool-result", provider, toolCallId: part.toolCallId, resultType: part.type, raw: json(part) };
}

function resultOutput(result: unknown, isError: boolean): LanguageModelV4ToolResultOutput {
  if (typeof result === "string") return { type: isError ? "error-text" : "text", value: result };
  return { type: isError ? "error-json" : "json", value: (result ?? null) as never };
}

const withOptions = <T extends object>(part: T, raw: JsonObject): T =>
  raw.providerMetadata === undefined ? part : { ...part, providerOptions: raw.providerMetadata as SharedV4ProviderOptions };

/**
 * A server tool part of this provider sent back as the specification's prompt parts: the
 * call as a provider-executed `tool-call` (its input from the raw part), the result as a
 * `tool-result` in the assistant message (its output from the raw result: text, or JSON;
 * `isError` makes it an error output). The provider metadata goes back as provider options.
 */
export function serverToolPrompt(part: ServerToolCallPart | ServerToolResultPart): AssistantContent[] {
  const raw = part.raw;
  const toolName = typeof raw.toolName === "string" ? raw.toolName : "";
  if (part.type === "server-tool-call") {
    const input = typeof raw.input === "string" ? parseToolArguments(raw.input) : undefined;
    return [
      withOptions(
        {
          type: "tool-call",
          toolCallId: part.toolCallId,
          toolName: toolName || part.toolName,
          input: input?.ok ? input.value : (raw.input ?? part.arguments),
          providerExecuted: true,
        },
        raw,
      ),
    ];
  }
  return [withOptions({ type: "tool-result", toolCallId: part.toolCallId, toolName, output: resultOutput(raw.result, raw.isError === true) }, raw)];
}
