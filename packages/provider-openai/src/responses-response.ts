import {
  YokeError,
  parseToolArguments,
  withholdRefusedCalls,
  type AssistantPart,
  type JsonValue,
  type ModelResponse,
  type StopReason,
  type ToolCallPart,
  type TruncatedToolCallPart,
  type Usage,
} from "@yoke/protocol";
import { withUsageTotals } from "@yoke/protocol/provider-utils";

/** The subset of a Responses API `Response` object the adapter reads. */
export interface WireResponse {
  id?: string;
  model?: string;
  status?: string;
  incomplete_details?: { reason?: string } | null;
  error?: { code?: string | null; type?: string | null; message?: string } | null;
  output?: WireOutputItem[];
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    input_tokens_details?: { cached_tokens?: number } | null;
    output_tokens_details?: { reasoning_tokens?: number } | null;
  } | null;
  service_tier?: string | null;
}

/** A `function_call` output item; `status` is `in_progress`, `completed` or `incomplete`. */
export interface WireFunctionCall {
  type: "function_call";
  id?: string;
  call_id: string;
  name: string;
  arguments: string;
  status?: string;
}

export type WireOutputItem =
  | { type: "message"; id?: string; content?: ({ type: "output_text"; text: string } | { type: "refusal"; refusal: string })[] }
  | WireFunctionCall
  | { type: "reasoning"; id: string; summary?: { type: string; text: string }[]; content?: { type: string; text: string }[]; encrypted_content?: string | null }
  | { type: string; id?: string };

/**
 * Maps a finished Responses API response: output items in order, the stop reason (tool calls
 * → `tool_use`; a refusal → `refusal`; `incomplete` → `max_tokens` or `content_filter`),
 * usage with cached and reasoning tokens and the derived totals, and reasoning items with
 * what is needed to send them back (`providerMetadata.openai.itemId`, `encryptedContent`,
 * the summary parts apart in `summary`).
 *
 * A refusal content part becomes a `refusal` part (never text, so nothing reads it as
 * structured output). A `function_call` the output limit cut becomes a
 * `tool-call-truncated` part, never a call (see `isCutFunctionCall`). In a refused or
 * filtered response (`incomplete:content_filter`, a refusal) every `function_call` is a
 * `tool-call-withheld` part, never a call (`withholdRefusedCalls`).
 *
 * `rawStopReason` is the response's `status` verbatim, `completed`, or, for an incomplete
 * response, `incomplete:` followed by `incomplete_details.reason` (`incomplete:max_output_tokens`,
 * `incomplete:content_filter`).
 */
export function mapResponsesResult(wire: WireResponse, fallbackModel: string, warnings: readonly string[]): ModelResponse {
  const content: AssistantPart[] = [];
  for (const item of wire.output ?? []) {
    if (item.type === "message" && "content" in item) {
      for (const part of item.content ?? []) {
        if (part.type === "output_text") content.push({ type: "text", text: part.text });
        else if (part.type === "refusal") content.push(refusalPart(part.refusal, item.id));
      }
    } else if (item.type === "function_call" && "call_id" in item) {
      const call = item as WireFunctionCall;
      content.push(
        isCutFunctionCall(call, wire)
          ? truncatedCall(call.call_id, call.name, call.arguments, call.id)
          : toolCall(call.call_id, call.name, call.arguments, call.id),
      );
    } else if (item.type === "reasoning" && "id" in item && item.id !== undefined) {
      const reasoningItem = item as Extract<WireOutputItem, { type: "reasoning" }>;
      const summary = (reasoningItem.summary ?? []).map((part) => part.text);
      const texts = [...summary, ...(reasoningItem.content ?? []).map((part) => part.text)];
      const meta: { [key: string]: JsonValue } = { itemId: reasoningItem.id };
      if (typeof reasoningItem.encrypted_content === "string") meta.encryptedContent = reasoningItem.encrypted_content;
      content.push({ type: "reasoning", text: texts.join("\n\n"), ...(summary.length > 0 ? { summary } : {}), providerMetadata: { openai: meta } });
    }
  }
  const { stopReason, raw } = responsesStopReason(wire, content);
  const response: ModelResponse = {
    provider: "openai",
    model: wire.model ?? fallbackModel,
    content,
    stopReason,
    rawStopReason: raw,
    usage: responsesUsage(wire.usage),
  };
  if (wire.id !== undefined) response.id = wire.id;
  const metadata: { [key: string]: JsonValue } = {};
  if (wire.id !== undefined) metadata.responseId = wire.id;
  if (typeof wire.service_tier === "string") metadata.serviceTier = wire.service_tier;
  if (Object.keys(metadata).length > 0) response.providerMetadata = { openai: metadata };
  if (warnings.length > 0) response.warnings = [...warnings];
  // A refused or filtered response runs nothing: its calls, finished or not, are withheld.
  return withholdRefusedCalls(response);
}

/**
 * Whether the output limit cut this `function_call`: the response is incomplete for
 * `max_output_tokens` and the item did not complete (its status is `incomplete` or
 * `in_progress`, or, without a status, its arguments are not a whole JSON value). A call
 * that completed before the limit stays a call.
 */
export function isCutFunctionCall(item: Pick<WireFunctionCall, "status" | "arguments">, wire: WireResponse): boolean {
  if (wire.status !== "incomplete" || wire.incomplete_details?.reason !== "max_output_tokens") return false;
  if (item.status === undefined) return !isWholeJson(item.arguments);
  return item.status !== "completed";
}

/** Whether `raw` is one complete JSON value (an empty string is not: the model wrote nothing yet). */
export function isWholeJson(raw: string): boolean {
  if (raw.trim() === "") return false;
  try {
    JSON.parse(raw);
    return true;
  } catch {
    return false;
  }
}

export function toolCall(toolCallId: string, toolName: string, rawArguments: string, itemId?: string): ToolCallPart {
  const part: ToolCallPart = { type: "tool-call", toolCallId, toolName, rawArguments };
  const parsed = parseToolArguments(rawArguments);
  if (parsed.ok) part.arguments = parsed.value;
  else part.argumentsError = parsed.error;
  if (itemId !== undefined) part.providerMetadata = { openai: { itemId } };
  return part;
}

export function truncatedCall(toolCallId: string, toolName: string, rawArguments: string, itemId?: string): TruncatedToolCallPart {
  const part: TruncatedToolCallPart = { type: "tool-call-truncated", toolCallId, toolName, rawArguments };
  if (itemId !== undefined) part.providerMetadata = { openai: { itemId } };
  return part;
}

function refusalPart(text: string, itemId: string | undefined): AssistantPart {
  return itemId === undefined ? { type: "refusal", text } : { type: "refusal", text, providerMetadata: { openai: { itemId } } };
}

function responsesStopReason(wire: WireResponse, content: readonly AssistantPart[]): { stopReason: StopReason; raw: string } {
  if (wire.status === "incomplete") {
    const reason = wire.incomplete_details?.reason ?? "unknown";
    const raw = `incomplete:${reason}`;
    if (reason === "max_output_tokens") return { stopReason: "max_tokens", raw };
    if (reason === "content_filter") return { stopReason: "content_filter", raw };
    throw new YokeError("PROVIDER_RESPONSE_INVALID", `the response is incomplete for an unknown reason: ${reason}`, {
      details: { provider: "openai", reason },
    });
  }
  if (wire.status !== "completed") {
    throw new YokeError("PROVIDER_RESPONSE_INVALID", `the response ended with status ${String(wire.status)}`, {
      details: { provider: "openai", status: wire.status },
    });
  }
  if (content.some((part) => part.type === "refusal")) return { stopReason: "refusal", raw: "completed" };
  if (content.some((part) => part.type === "tool-call")) return { stopReason: "tool_use", raw: "completed" };
  return { stopReason: "end_turn", raw: "completed" };
}

function responsesUsage(usage: WireResponse["usage"]): Usage {
  const result: Usage = { inputTokens: usage?.input_tokens ?? 0, outputTokens: usage?.output_tokens ?? 0 };
  const cached = usage?.input_tokens_details?.cached_tokens;
  const reasoning = usage?.output_tokens_details?.reasoning_tokens;
  if (typeof cached === "number") result.cacheReadTokens = cached;
  if (typeof reasoning === "number") result.reasoningTokens = reasoning;
  return withUsageTotals(result);
}
