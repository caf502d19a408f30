import {
  parseToolArguments,
  type AssistantPart,
  type JsonValue,
  type ServerToolCallPart,
  type ServerToolResultPart,
  type ServerToolSpec,
} from "@yoke/protocol";

export type JsonObject = { [key: string]: JsonValue };

/**
 * The Anthropic server tool types this adapter declares (`ServerToolSpec.type`), each with
 * a recorded fixture: web search and web fetch. Both are generally available on the Messages
 * API (no beta header).
 *
 * @example
 * ```ts
 * const request: ModelRequest = {
 *   messages, tools: [],
 *   serverTools: [{ provider: "anthropic", type: "web_search_20250305", name: "web_search", options: { max_uses: 3 } }],
 * };
 * ```
 */
export const ANTHROPIC_SERVER_TOOL_TYPES = ["web_search_20250305", "web_fetch_20250910"] as const;

/**
 * A result block of a server tool (`web_search_tool_result`, `web_fetch_tool_result`,
 * `code_execution_tool_result`, …): a `*_tool_result` type the API puts in the assistant's
 * content. MCP connector results pair with `mcp_tool_use` blocks, which this adapter does not
 * represent, so they are not server tool results here.
 */
export function isServerToolResultType(type: string): boolean {
  return type.endsWith("_tool_result") && type !== "tool_result" && type !== "mcp_tool_result";
}

/**
 * The `server-tool-call` part of a finished `server_tool_use` block: its input parsed from
 * the streamed JSON, put back in the block in place (`raw` is the block as a whole message
 * would have carried it). Undefined when the input is not a JSON object (the output limit cut
 * it): such a block cannot be sent back.
 */
export function serverToolCall(block: { raw: JsonObject; rawInput: string }): ServerToolCallPart | undefined {
  const parsed = block.rawInput === "" ? { ok: true as const, value: isObject(block.raw.input) ? block.raw.input : {} } : parseToolArguments(block.rawInput);
  if (!parsed.ok || !isObject(parsed.value)) return undefined;
  const raw: JsonObject = {};
  for (const [key, value] of Object.entries(block.raw)) raw[key] = key === "input" ? parsed.value : value;
  return {
    type: "server-tool-call",
    provider: "anthropic",
    toolCallId: String(block.raw.id ?? ""),
    toolName: String(block.raw.name ?? ""),
    arguments: parsed.value,
    raw,
  };
}

/** The `server-tool-result` part of a server tool result block, kept verbatim. */
export function serverToolResult(raw: JsonObject): ServerToolResultPart {
  return { type: "server-tool-result", provider: "anthropic", toolCallId: String(raw.tool_use_id ?? ""), resultType: String(raw.type), raw };
}

/**
 * An Anthropic server tool part as the block it came from, to send back in place (a copy, so
 * nothing added to the request touches the journaled part). Another provider's server tool
 * parts cannot be sent to Anthropic: undefined.
 */
export function serverToolBlock(part: AssistantPart): JsonObject | undefined {
  if (part.type !== "server-tool-call" && part.type !== "server-tool-result") return undefined;
  return part.provider === "anthropic" ? { ...part.raw } : undefined;
}

/** A declared server tool as the Messages API takes it in `tools`: `{ type, name, ...options }`. */
export function serverToolDefinition(spec: ServerToolSpec): JsonObject {
  return { type: spec.type, name: spec.name, ...spec.options };
}

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);
