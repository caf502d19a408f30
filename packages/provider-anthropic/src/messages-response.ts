import { YokeError, parseToolArguments, type AssistantPart, type JsonValue, type ModelResponse, type StopReason, type ToolCallPart, type Usage } from "@yoke/protocol";

/** The subset of an Anthropic `Message` (or one folded from stream events) the adapter reads. */
export interface WireMessage {
  id?: string;
  model?: string;
  stop_reason?: string | null;
  stop_sequence?: string | null;
  content: WireBlock[];
  usage?: WireUsage;
}

export interface WireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number } | null;
}

/** A content block; tool-use input is kept as the raw JSON text the model streamed. */
export type WireBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; rawInput: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "other"; original: string };

const STOP: Record<string, StopReason> = {
  end_turn: "end_turn",
  stop_sequence: "end_turn",
  max_tokens: "max_tokens",
  model_context_window_exceeded: "max_tokens",
  tool_use: "tool_use",
  pause_turn: "pause",
  refusal: "refusal",
};

/**
 * Maps a finished message. `pause_turn` → `pause` (send the response back to continue the
 * turn); `refusal` → `refusal`. Thinking blocks keep their signatures in
 * `providerMetadata.anthropic` so they can be sent back on the next turn. `inputTokens`
 * counts all input, cached or not (Anthropic reports the three separately).
 */
export function mapMessage(wire: WireMessage, fallbackModel: string, warnings: readonly string[]): ModelResponse {
  const content: AssistantPart[] = [];
  const dropped: string[] = [];
  for (const block of wire.content) {
    if (block.type === "text") content.push({ type: "text", text: block.text });
    else if (block.type === "tool_use") content.push(toolCall(block.id, block.name, block.rawInput));
    else if (block.type === "thinking") content.push({ type: "reasoning", text: block.thinking, providerMetadata: { anthropic: { signature: block.signature } } });
    else if (block.type === "redacted_thinking") content.push({ type: "reasoning", text: "", providerMetadata: { anthropic: { redactedData: block.data } } });
    else dropped.push(block.original);
  }
  const raw = wire.stop_reason ?? "";
  const stopReason = STOP[raw];
  if (stopReason === undefined) {
    throw new YokeError("PROVIDER_RESPONSE_INVALID", `unknown stop reason ${JSON.stringify(raw)}`, { details: { provider: "anthropic", stopReason: raw } });
  }
  const response: ModelResponse = { provider: "anthropic", model: wire.model ?? fallbackModel, content, stopReason, rawStopReason: raw, usage: mapUsage(wire.usage) };
  if (wire.id !== undefined) response.id = wire.id;
  const metadata: { [key: string]: JsonValue } = {};
  if (wire.stop_sequence) metadata.stopSequence = wire.stop_sequence;
  if (Object.keys(metadata).length > 0) response.providerMetadata = { anthropic: metadata };
  const allWarnings = [...warnings, ...dropped.map((type) => `content block of type ${type} is not represented and was dropped`)];
  if (allWarnings.length > 0) response.warnings = allWarnings;
  return response;
}

function toolCall(toolCallId: string, toolName: string, rawArguments: string): ToolCallPart {
  const part: ToolCallPart = { type: "tool-call", toolCallId, toolName, rawArguments };
  const parsed = parseToolArguments(rawArguments);
  if (parsed.ok) part.arguments = parsed.value;
  else part.argumentsError = parsed.error;
  return part;
}

function mapUsage(usage: WireUsage | undefined): Usage {
  const read = usage?.cache_read_input_tokens ?? 0;
  const write = usage?.cache_creation_input_tokens ?? 0;
  const result: Usage = { inputTokens: (usage?.input_tokens ?? 0) + read + write, outputTokens: usage?.output_tokens ?? 0, cacheReadTokens: read, cacheWriteTokens: write };
  const thinking = usage?.output_tokens_details?.thinking_tokens;
  if (typeof thinking === "number") result.reasoningTokens = thinking;
  return result;
}
