import type { JsonValue, Message, ModelRequest } from "@yoke/protocol";
import { DEFAULT_MAX_TOKENS } from "./admission.js";
import type { AnthropicRequestOptions } from "./provider-options.js";
import { serverToolBlock, serverToolDefinition } from "./server-tools.js";
import { userBlocks } from "./user-content.js";

type Block = { [key: string]: JsonValue };
type WireMessage = { role: "user" | "assistant"; content: Block[] };

/**
 * The Messages API body for a normalized request. System messages become the `system`
 * blocks; tool results become `tool_result` blocks of a user turn, right after the
 * `tool_use` blocks they answer; consecutive turns of one role are merged. Thinking blocks
 * go back verbatim with their signatures (the API checks them), and so do server tool blocks
 * (`server_tool_use`, `web_search_tool_result`, …), in place; a tool call the output limit
 * cut (`tool-call-truncated`) is never sent back. One cache breakpoint
 * (`cache_control`) marks the end of the request's stable prefix, so the next turn, which
 * keeps that prefix byte-identical, reads it from the cache.
 */
export function messagesBody(
  request: ModelRequest,
  options: AnthropicRequestOptions,
  target: { modelId: string; stream: boolean },
): { [key: string]: JsonValue } {
  const system: Block[] = [];
  const messages: WireMessage[] = [];
  // The last cacheable block each normalized message produced, to place the breakpoint on.
  const lastBlock: (Block | undefined)[] = [];
  for (const message of request.messages) {
    if (message.role === "system") {
      const block: Block = { type: "text", text: message.content };
      system.push(block);
      lastBlock.push(block);
      continue;
    }
    const role = message.role === "assistant" ? "assistant" : "user";
    const blocks = toBlocks(message);
    lastBlock.push(blocks.findLast((block) => CACHEABLE.has(String(block.type))));
    // A message left empty (an assistant turn that was only a cut tool call) is not sent.
    if (blocks.length === 0) continue;
    const previous = messages.at(-1);
    if (previous?.role === role) previous.content.push(...blocks);
    else messages.push({ role, content: blocks });
  }
  const prefix = request.stablePrefixMessages ?? 0;
  const breakpoint = prefix > 0 && options.promptCaching !== false ? lastBlock[prefix - 1] : undefined;
  if (breakpoint !== undefined)
    breakpoint.cache_control = options.cacheTtl === undefined ? { type: "ephemeral" } : { type: "ephemeral", ttl: options.cacheTtl };

  const budget = options.thinkingBudgetTokens;
  const body: { [key: string]: JsonValue } = {
    model: target.modelId,
    max_tokens: request.maxOutputTokens ?? DEFAULT_MAX_TOKENS + (budget ?? 0),
    messages,
  };
  if (system.length > 0) body.system = system;
  const tools: Block[] = request.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema,
    ...(tool.strict === true ? { strict: true } : {}),
  }));
  for (const spec of request.serverTools ?? []) tools.push(serverToolDefinition(spec));
  if (tools.length > 0) body.tools = tools;
  const choice = request.toolChoice;
  if (choice !== undefined || options.parallelToolCalls === false) {
    const type = choice === "required" ? "any" : (choice ?? "auto");
    body.tool_choice = options.parallelToolCalls === false && type !== "none" ? { type, disable_parallel_tool_use: true } : { type };
  }
  if (request.temperature !== undefined && budget === undefined) body.temperature = request.temperature;
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) body.stop_sequences = [...request.stopSequences];
  if (budget !== undefined) body.thinking = { type: "enabled", budget_tokens: budget };
  if (target.stream) body.stream = true;
  return body;
}

function toBlocks(message: Exclude<Message, { role: "system" }>): Block[] {
  switch (message.role) {
    case "user":
      return userBlocks(message.content);
    case "tool":
      return message.content.map((part) => {
        const block: Block = { type: "tool_result", tool_use_id: part.toolCallId, content: resultText(part.result) };
        if (part.result.status === "error") block.is_error = true;
        return block;
      });
    case "assistant":
      return message.content.flatMap((part): Block[] => {
        if (part.type === "text") return part.text === "" ? [] : [{ type: "text", text: part.text }];
        if (part.type === "tool-call")
          return [{ type: "tool_use", id: part.toolCallId, name: part.toolName, input: toolInput(part.rawArguments, part.arguments) }];
        if (part.type === "server-tool-call" || part.type === "server-tool-result") {
          const block = serverToolBlock(part);
          return block === undefined ? [] : [block];
        }
        // A cut call (tool-call-truncated) is never sent back; nor is a refusal (the API has no such input block).
        if (part.type !== "reasoning") return [];
        const meta = part.providerMetadata?.anthropic;
        if (typeof meta?.redactedData === "string") return [{ type: "redacted_thinking", data: meta.redactedData }];
        // Thinking without Anthropic's signature (another provider's reasoning) cannot be sent back.
        if (typeof meta?.signature === "string") return [{ type: "thinking", thinking: part.text, signature: meta.signature }];
        return [];
      });
  }
}

// Blocks a cache breakpoint may go on: not thinking (the API refuses it there) and not a
// server tool block, which goes back exactly as it came.
const CACHEABLE = new Set(["text", "tool_use", "tool_result", "image", "document"]);

const isObject = (value: unknown): value is { [key: string]: JsonValue } => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A `tool_use` block's input as the model wrote it: parsed from `rawArguments`, so its keys
 * keep the model's order. The journaled `arguments` are canonical JSON (keys sorted), and a
 * resumed run that sent those would send other bytes than the uninterrupted one, missing the
 * prompt cache. Unparsable arguments go back as the parsed value, or `{}`.
 */
function toolInput(rawArguments: string, parsed: JsonValue | undefined): { [key: string]: JsonValue } {
  try {
    const value = JSON.parse(rawArguments) as unknown;
    if (isObject(value)) return value;
  } catch {
    // Not JSON: the model's arguments were malformed; fall back below.
  }
  return isObject(parsed) ? parsed : {};
}

function resultText(result: { status: "ok" | "error"; content: { text: string }[]; error?: { code: string; message: string } | undefined }): string {
  const text = result.content.map((part) => part.text).join("\n");
  if (result.status === "ok") return text;
  const error = result.error === undefined ? "error" : `${result.error.code}: ${result.error.message}`;
  return text === "" ? error : `${error}\n${text}`;
}
