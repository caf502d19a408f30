import type { JsonValue, ModelRequest } from "@yoke/protocol";
import type { OpenAIModelFamily } from "./capabilities.js";
import type { OpenAIRequestOptions } from "./provider-options.js";
import { toolResultText } from "./tool-result-text.js";
import { truncatedCallIds } from "./truncated-calls.js";
import { responsesUserContent } from "./user-content.js";

type Body = { [key: string]: JsonValue };

/**
 * The Responses API body for a normalized request. Nothing is stored server-side by default
 * (`store: false`), so reasoning items travel back with their encrypted content, which
 * reasoning models are asked to include, and with their summary parts apart, as they came.
 *
 * A refusal goes back in OpenAI's own form, an assistant output message (`type: "message"`,
 * its `id`, `status: "completed"`) with a `refusal` content item, which the API takes as an
 * input item; the message id is required there, so a refusal without one (another
 * provider's, or Chat Completions') goes back as assistant text. A truncated call is never
 * sent back, nor any output for its id: the runtime asks for it again.
 */
export function responsesBody(
  request: ModelRequest,
  options: OpenAIRequestOptions,
  target: { modelId: string; family: OpenAIModelFamily; stream: boolean },
): Body {
  const { reasoning } = target.family;
  const input: JsonValue[] = [];
  const truncated = truncatedCallIds(request);
  for (const message of request.messages) {
    switch (message.role) {
      case "system":
        input.push({ role: reasoning ? "developer" : "system", content: message.content });
        break;
      case "user":
        input.push({ role: "user", content: responsesUserContent(message.content) });
        break;
      case "assistant":
        for (const part of message.content) {
          if (part.type === "text") input.push({ role: "assistant", content: part.text });
          else if (part.type === "refusal") {
            const itemId = part.providerMetadata?.openai?.itemId;
            if (typeof itemId === "string") {
              input.push({ type: "message", role: "assistant", id: itemId, status: "completed", content: [{ type: "refusal", refusal: part.text }] });
            } else input.push({ role: "assistant", content: part.text });
          } else if (part.type === "tool-call") {
            input.push({ type: "function_call", call_id: part.toolCallId, name: part.toolName, arguments: part.rawArguments });
          } else if (part.type === "reasoning") {
            const meta = part.providerMetadata?.openai;
            // Only OpenAI's own reasoning items can be sent back; another provider's are dropped.
            if (typeof meta?.itemId !== "string") continue;
            const summary = part.summary ?? (part.text === "" ? [] : [part.text]);
            const item: Body = { type: "reasoning", id: meta.itemId, summary: summary.map((text) => ({ type: "summary_text", text })) };
            if (typeof meta.encryptedContent === "string") item.encrypted_content = meta.encryptedContent;
            input.push(item);
          }
        }
        break;
      case "tool":
        for (const part of message.content) {
          if (!truncated.has(part.toolCallId)) input.push({ type: "function_call_output", call_id: part.toolCallId, output: toolResultText(part.result) });
        }
        break;
    }
  }
  const body: Body = { model: target.modelId, input };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: tool.inputSchema,
      strict: tool.strict === true,
    }));
  }
  if (request.toolChoice !== undefined) body.tool_choice = request.toolChoice;
  if (options.parallelToolCalls !== undefined) body.parallel_tool_calls = options.parallelToolCalls;
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined && !reasoning) body.temperature = request.temperature;
  const store = options.store ?? false;
  body.store = store;
  if (reasoning) {
    const settings: Body = {};
    if (options.reasoningEffort !== undefined) settings.effort = options.reasoningEffort;
    if (options.reasoningSummary !== undefined) settings.summary = options.reasoningSummary;
    if (Object.keys(settings).length > 0) body.reasoning = settings;
    if (!store) body.include = ["reasoning.encrypted_content"];
  }
  if (options.structuredOutput !== undefined) {
    const { name, schema, description, strict } = options.structuredOutput;
    body.text = { format: { type: "json_schema", name, schema, strict: strict !== false, ...(description === undefined ? {} : { description }) } };
  }
  if (options.promptCacheKey !== undefined) body.prompt_cache_key = options.promptCacheKey;
  if (options.serviceTier !== undefined) body.service_tier = options.serviceTier;
  if (target.stream) body.stream = true;
  return body;
}
