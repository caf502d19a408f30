import {
  YokeError,
  withholdRefusedCalls,
  type AssistantPart,
  type JsonValue,
  type ModelResponse,
  type ModelStreamPart,
  type StopReason,
  type Usage,
} from "@yoke/protocol";
import { withUsageTotals } from "@yoke/protocol/provider-utils";
import { isWholeJson, toolCall, truncatedCall } from "./responses-response.js";

/** The subset of a Chat Completions response, or of a stream chunk, the adapter reads. */
export interface WireChatCompletion {
  id?: string;
  model?: string;
  choices?: {
    finish_reason?: string | null;
    message?: { content?: string | null; refusal?: string | null; tool_calls?: WireChatToolCall[] | null };
    delta?: { content?: string | null; refusal?: string | null; tool_calls?: (WireChatToolCall & { index: number })[] | null };
  }[];
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number } | null;
    completion_tokens_details?: { reasoning_tokens?: number } | null;
  } | null;
  service_tier?: string | null;
}

interface WireChatToolCall {
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

/** A chat completion folded from a stream or read from a JSON body. */
interface ChatResult {
  id?: string | undefined;
  model?: string | undefined;
  text: string;
  refusal: string;
  calls: { id: string; name: string; arguments: string }[];
  finishReason: string;
  usage: WireChatCompletion["usage"];
  serviceTier?: string;
}

const FINISH: Record<string, StopReason> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  function_call: "tool_use",
  content_filter: "content_filter",
};

/**
 * The index of the tool call the output limit cut, if any: with finish reason `length`, the
 * last call, when its arguments are not yet a whole JSON value. Calls before it completed
 * (the model writes them in order) and stay calls.
 */
export function cutCallIndex(result: Pick<ChatResult, "calls" | "finishReason">): number | undefined {
  if (result.finishReason !== "length") return undefined;
  const last = result.calls.findLastIndex((call) => call !== undefined);
  return last >= 0 && !isWholeJson(result.calls[last]!.arguments) ? last : undefined;
}

/**
 * Folds Chat Completions chunks (text, refusal and indexed tool-call deltas, then a usage
 * chunk) into one result, forwarding deltas as stream parts: a refusal as `refusal-delta`,
 * never `text-delta`; a call the output limit cut (`cutCallIndex`) ends with
 * `tool-call-truncated` instead of `tool-call-end`. A stream that ends before a finish
 * reason was cut: PROVIDER_STREAM_CUT.
 */
export async function consumeChatStream(chunks: AsyncIterable<WireChatCompletion>, emit: ((part: ModelStreamPart) => void) | undefined): Promise<ChatResult> {
  const result: ChatResult = { text: "", refusal: "", calls: [], finishReason: "", usage: undefined };
  let received = 0;
  for await (const chunk of chunks) {
    received += 1;
    result.id ??= chunk.id;
    result.model ??= chunk.model;
    if (chunk.usage) result.usage = chunk.usage;
    if (typeof chunk.service_tier === "string") result.serviceTier = chunk.service_tier;
    const choice = chunk.choices?.[0];
    if (choice === undefined) continue;
    const delta = choice.delta ?? {};
    if (delta.content) {
      result.text += delta.content;
      emit?.({ type: "text-delta", text: delta.content });
    }
    if (delta.refusal) {
      result.refusal += delta.refusal;
      emit?.({ type: "refusal-delta", text: delta.refusal });
    }
    for (const call of delta.tool_calls ?? []) {
      let slot = result.calls[call.index];
      if (slot === undefined) {
        slot = { id: call.id ?? `call_${call.index}`, name: call.function?.name ?? "", arguments: "" };
        result.calls[call.index] = slot;
        emit?.({ type: "tool-call-start", toolCallId: slot.id, toolName: slot.name });
      }
      const argumentsDelta = call.function?.arguments ?? "";
      if (argumentsDelta !== "") {
        slot.arguments += argumentsDelta;
        emit?.({ type: "tool-call-delta", toolCallId: slot.id, argumentsDelta });
      }
    }
    if (choice.finish_reason) {
      result.finishReason = choice.finish_reason;
      const cut = cutCallIndex(result);
      result.calls.forEach((call, index) => {
        if (call !== undefined) emit?.({ type: index === cut ? "tool-call-truncated" : "tool-call-end", toolCallId: call.id });
      });
    }
  }
  if (result.finishReason === "") {
    throw new YokeError("PROVIDER_STREAM_CUT", `the chat completion stream ended after ${received} chunk(s) without a finish reason`, {
      details: { provider: "openai", events: received },
    });
  }
  return result;
}

/** Reads a non-streamed chat completion. */
export function readChatCompletion(wire: WireChatCompletion): ChatResult {
  const choice = wire.choices?.[0];
  const calls = (choice?.message?.tool_calls ?? []).map((call, index) => ({
    id: call.id ?? `call_${index}`,
    name: call.function?.name ?? "",
    arguments: call.function?.arguments ?? "",
  }));
  const result: ChatResult = {
    text: choice?.message?.content ?? "",
    refusal: choice?.message?.refusal ?? "",
    calls,
    finishReason: choice?.finish_reason ?? "",
    usage: wire.usage,
  };
  if (wire.id !== undefined) result.id = wire.id;
  if (wire.model !== undefined) result.model = wire.model;
  if (typeof wire.service_tier === "string") result.serviceTier = wire.service_tier;
  return result;
}

/**
 * Maps a chat result: `message.refusal` is a `refusal` part with stop reason `refusal` (never
 * text); a call cut by the output limit is a `tool-call-truncated` part; every call of a
 * refused or filtered response (`content_filter`, a refusal) is a `tool-call-withheld` part; finish reasons per
 * the table, `rawStopReason` the `finish_reason` verbatim.
 */
export function mapChatResult(result: ChatResult, fallbackModel: string, warnings: readonly string[]): ModelResponse {
  const content: AssistantPart[] = [];
  if (result.text !== "") content.push({ type: "text", text: result.text });
  if (result.refusal !== "") content.push({ type: "refusal", text: result.refusal });
  const cut = cutCallIndex(result);
  result.calls.forEach((call, index) => {
    if (call !== undefined) content.push(index === cut ? truncatedCall(call.id, call.name, call.arguments) : toolCall(call.id, call.name, call.arguments));
  });
  const stopReason: StopReason | undefined = result.refusal !== "" ? "refusal" : FINISH[result.finishReason];
  if (stopReason === undefined) {
    throw new YokeError("PROVIDER_RESPONSE_INVALID", `unknown finish reason ${result.finishReason}`, {
      details: { provider: "openai", finishReason: result.finishReason },
    });
  }
  const usage: Usage = { inputTokens: result.usage?.prompt_tokens ?? 0, outputTokens: result.usage?.completion_tokens ?? 0 };
  const cached = result.usage?.prompt_tokens_details?.cached_tokens;
  const reasoning = result.usage?.completion_tokens_details?.reasoning_tokens;
  if (typeof cached === "number") usage.cacheReadTokens = cached;
  if (typeof reasoning === "number") usage.reasoningTokens = reasoning;
  const response: ModelResponse = {
    provider: "openai",
    model: result.model ?? fallbackModel,
    content,
    stopReason,
    rawStopReason: result.finishReason,
    usage: withUsageTotals(usage),
  };
  if (result.id !== undefined) response.id = result.id;
  const metadata: { [key: string]: JsonValue } = { api: "chat" };
  if (result.serviceTier !== undefined) metadata.serviceTier = result.serviceTier;
  response.providerMetadata = { openai: metadata };
  if (warnings.length > 0) response.warnings = [...warnings];
  // A refused or filtered response runs nothing: its calls, finished or not, are withheld.
  return withholdRefusedCalls(response);
}
