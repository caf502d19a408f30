import {
  YokeError,
  parseToolArguments,
  withholdRefusedCalls,
  type AssistantPart,
  type JsonValue,
  type ModelResponse,
  type StopReason,
  type ToolCallPart,
  type Usage,
} from "@yoke/protocol";
import { withUsageTotals } from "@yoke/protocol/provider-utils";
import { serverToolCall, serverToolResult, type JsonObject } from "./server-tools.js";

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
  /** Server tool uses by Anthropic's own names (`web_search_requests`, `web_fetch_requests`). */
  server_tool_use?: { [name: string]: unknown } | null;
}

/**
 * A content block. Tool input is kept as the raw JSON text the model streamed; `closed` says
 * the block ended (its `content_block_stop` came, or, in a whole message, another block
 * followed it). Server tool blocks keep the provider's block verbatim in `raw`.
 */
export type WireBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; rawInput: string; closed: boolean }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "server_tool_use"; raw: JsonObject; rawInput: string }
  | { type: "server_tool_result"; raw: JsonObject }
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

/** The stop reasons that mean the output limit cut the message off. */
const CUT = new Set(["max_tokens", "model_context_window_exceeded"]);

/**
 * Whether block `index` of `blocks` is a tool call the output limit cut off. Only the last
 * block of a message stopped by `max_tokens` can have been cut (the model writes blocks in
 * order); it was cut unless it ended and its input parses as a JSON object. In a whole
 * (non-streamed) message the input was already parsed by the API, so the cut cannot be seen
 * in it: the last `tool_use` block of such a message always counts as cut.
 */
export function isCutToolUse(blocks: readonly (WireBlock | undefined)[], index: number, stopReason: string | null | undefined): boolean {
  const block = blocks[index];
  if (block?.type !== "tool_use" || !CUT.has(stopReason ?? "") || index !== blocks.length - 1) return false;
  return !(block.closed && parsesAsObject(block.rawInput));
}

/** True when `raw` is the JSON text of an object (an empty text is not). */
export function parsesAsObject(raw: string): boolean {
  try {
    const value = JSON.parse(raw) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * Maps a finished message. `pause_turn` → `pause` (send the response back to continue the
 * turn); `refusal` → `refusal`, and every `tool_use` block of a refused message, whole or
 * not, is a `tool-call-withheld` part, never a call; `stop_sequence` → `end_turn`, the matched sequence in
 * `providerMetadata.anthropic.stopSequence`. A `tool_use` block the output limit cut off is a
 * `tool-call-truncated` part, never a call. Server tool blocks (`server_tool_use`,
 * `web_search_tool_result`, …) become `server-tool-call` / `server-tool-result` parts that
 * keep the block verbatim. Thinking blocks keep their signatures in
 * `providerMetadata.anthropic`. `inputTokens` counts all input, cached or not (Anthropic
 * reports the three separately).
 */
export function mapMessage(wire: WireMessage, fallbackModel: string, warnings: readonly string[]): ModelResponse {
  const content: AssistantPart[] = [];
  const dropped: string[] = [];
  wire.content.forEach((block, index) => {
    if (block.type === "text") content.push({ type: "text", text: block.text });
    else if (block.type === "tool_use") {
      content.push(
        isCutToolUse(wire.content, index, wire.stop_reason)
          ? { type: "tool-call-truncated", toolCallId: block.id, toolName: block.name, rawArguments: block.rawInput }
          : toolCall(block.id, block.name, block.rawInput),
      );
    } else if (block.type === "thinking")
      content.push({ type: "reasoning", text: block.thinking, providerMetadata: { anthropic: { signature: block.signature } } });
    else if (block.type === "redacted_thinking") content.push({ type: "reasoning", text: "", providerMetadata: { anthropic: { redactedData: block.data } } });
    else if (block.type === "server_tool_use") {
      const part = serverToolCall(block);
      if (part === undefined) dropped.push(`server_tool_use block ${String(block.raw.id)} was cut by the output limit and was dropped`);
      else content.push(part);
    } else if (block.type === "server_tool_result") content.push(serverToolResult(block.raw));
    else dropped.push(`content block of type ${block.original} is not represented and was dropped`);
  });
  const raw = wire.stop_reason ?? "";
  const stopReason = STOP[raw];
  if (stopReason === undefined) {
    throw new YokeError("PROVIDER_RESPONSE_INVALID", `unknown stop reason ${JSON.stringify(raw)}`, { details: { provider: "anthropic", stopReason: raw } });
  }
  const response: ModelResponse = {
    provider: "anthropic",
    model: wire.model ?? fallbackModel,
    content,
    stopReason,
    rawStopReason: raw,
    usage: mapUsage(wire.usage),
  };
  if (wire.id !== undefined) response.id = wire.id;
  const metadata: { [key: string]: JsonValue } = {};
  if (wire.stop_sequence) metadata.stopSequence = wire.stop_sequence;
  if (Object.keys(metadata).length > 0) response.providerMetadata = { anthropic: metadata };
  const allWarnings = [...warnings, ...dropped];
  if (allWarnings.length > 0) response.warnings = allWarnings;
  // A refused message runs nothing: its calls, whole or still being written, are withheld.
  return withholdRefusedCalls(response);
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
  const result: Usage = {
    inputTokens: (usage?.input_tokens ?? 0) + read + write,
    outputTokens: usage?.output_tokens ?? 0,
    cacheReadTokens: read,
    cacheWriteTokens: write,
  };
  const thinking = usage?.output_tokens_details?.thinking_tokens;
  if (typeof thinking === "number") result.reasoningTokens = thinking;
  const serverToolUse = Object.entries(usage?.server_tool_use ?? {}).filter(
    (entry): entry is [string, number] => Number.isInteger(entry[1]) && (entry[1] as number) >= 0,
  );
  if (serverToolUse.length > 0) result.serverToolUse = Object.fromEntries(serverToolUse);
  return withUsageTotals(result);
}
