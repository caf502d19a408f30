import type { JsonValue, ModelRequest } from "@yoke/protocol";
import type { OpenAIModelFamily } from "./capabilities.js";
import type { OpenAIRequestOptions } from "./provider-options.js";
import { toolResultText } from "./tool-result-text.js";
import { truncatedCallIds } from "./truncated-calls.js";
import { chatUserContent } from "./user-content.js";

type Body = { [key: string]: JsonValue };

/**
 * The Chat Completions body for a normalized request (reasoning items cannot travel here).
 * A refusal goes back in the assistant message's `refusal` field, where the API returned it
 * (and, when the message has no text and no calls, as its one `refusal` content part, since
 * `content` is required then);
 * a truncated call is never sent back, nor any tool message for its id. Stop sequences are
 * `stop`; a strict tool is a function with `strict: true`.
 */
export function chatBody(request: ModelRequest, options: OpenAIRequestOptions, target: { modelId: string; family: OpenAIModelFamily; stream: boolean }): Body {
  const { reasoning } = target.family;
  const messages: JsonValue[] = [];
  const truncated = truncatedCallIds(request);
  for (const message of request.messages) {
    switch (message.role) {
      case "system":
        messages.push({ role: reasoning ? "developer" : "system", content: message.content });
        break;
      case "user":
        messages.push({ role: "user", content: chatUserContent(message.content) });
        break;
      case "assistant": {
        const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
        const calls = message.content.flatMap((part) =>
          part.type === "tool-call" ? [{ id: part.toolCallId, type: "function", function: { name: part.toolName, arguments: part.rawArguments } }] : [],
        );
        const refusal = message.content.flatMap((part) => (part.type === "refusal" ? [part.text] : [])).join("");
        // `content` is required unless there are tool calls; a refusal alone goes as the one
        // refusal content part the API allows, and in the `refusal` field where the API returned it.
        const item: Body = { role: "assistant", content: text !== "" ? text : refusal !== "" && calls.length === 0 ? [{ type: "refusal", refusal }] : null };
        if (refusal !== "") item.refusal = refusal;
        if (calls.length > 0) item.tool_calls = calls;
        // Nothing left to send (only a truncated call, or reasoning): an empty assistant message is invalid.
        if (item.content !== null || item.refusal !== undefined || item.tool_calls !== undefined) messages.push(item);
        break;
      }
      case "tool":
        for (const part of message.content) {
          if (!truncated.has(part.toolCallId)) messages.push({ role: "tool", tool_call_id: part.toolCallId, content: toolResultText(part.result) });
        }
        break;
    }
  }
  const body: Body = { model: target.modelId, messages };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema, ...(tool.strict === true ? { strict: true } : {}) },
    }));
  }
  if (request.toolChoice !== undefined) body.tool_choice = request.toolChoice;
  if (options.parallelToolCalls !== undefined) body.parallel_tool_calls = options.parallelToolCalls;
  if (request.maxOutputTokens !== undefined) body.max_completion_tokens = request.maxOutputTokens;
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) body.stop = request.stopSequences;
  if (request.temperature !== undefined && !reasoning) body.temperature = request.temperature;
  if (reasoning && options.reasoningEffort !== undefined) body.reasoning_effort = options.reasoningEffort;
  if (options.structuredOutput !== undefined) {
    const { name, schema, description, strict } = options.structuredOutput;
    body.response_format = {
      type: "json_schema",
      json_schema: { name, schema, strict: strict !== false, ...(description === undefined ? {} : { description }) },
    };
  }
  if (options.promptCacheKey !== undefined) body.prompt_cache_key = options.promptCacheKey;
  if (options.serviceTier !== undefined) body.service_tier = options.serviceTier;
  if (target.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}
