import { YokeError, type ModelStreamPart } from "@yoke/protocol";
import { classifyProviderError } from "@yoke/protocol/provider-utils";
import { isCutFunctionCall, type WireFunctionCall, type WireOutputItem, type WireResponse } from "./responses-response.js";

/** The subset of Responses API stream events the adapter reads. */
export interface WireResponsesEvent {
  type: string;
  delta?: string;
  item_id?: string;
  output_index?: number;
  summary_index?: number;
  item?: WireOutputItem;
  response?: WireResponse;
}

const FINAL = new Set(["response.completed", "response.incomplete"]);

/**
 * Consumes a Responses API event stream: forwards text, refusal, reasoning-summary and
 * tool-argument deltas as stream parts, and returns the final `Response` of
 * `response.completed` or `response.incomplete`. A stream that ends without one was cut:
 * PROVIDER_STREAM_CUT, and nothing partial is returned. `response.failed` is an error with
 * the response's own code.
 *
 * A refusal streams as `refusal-delta`, never `text-delta`. A reasoning summary in several
 * parts streams a `"\n\n"` reasoning delta between parts, so the deltas join to the part's
 * `text`. A function call ends with `tool-call-end` once its item completes; one the output
 * limit cut ends with `tool-call-truncated` when the final response says so (the same rule
 * the mapped response follows, `isCutFunctionCall`).
 */
export async function consumeResponsesStream(
  events: AsyncIterable<WireResponsesEvent>,
  emit: ((part: ModelStreamPart) => void) | undefined,
): Promise<WireResponse> {
  const callIds = new Map<string, string>();
  // Calls started and not yet ended: settled as ended or truncated by the final response.
  const open = new Set<string>();
  let received = 0;
  let final: WireResponse | undefined;
  for await (const event of events) {
    received += 1;
    // Read on to the end of the body rather than returning: leaving early aborts the
    // request, and with it the kept-alive connection the next call would reuse.
    if (final !== undefined) continue;
    if (FINAL.has(event.type) && event.response !== undefined) {
      final = event.response;
      if (emit !== undefined) settleOpenCalls(open, final, emit);
      continue;
    }
    if (event.type === "response.failed") throw failed(event.response);
    if (emit === undefined) continue;
    switch (event.type) {
      case "response.output_text.delta":
        if (event.delta) emit({ type: "text-delta", text: event.delta });
        break;
      case "response.refusal.delta":
        if (event.delta) emit({ type: "refusal-delta", text: event.delta });
        break;
      case "response.reasoning_summary_part.added":
        if ((event.summary_index ?? 0) > 0) emit({ type: "reasoning-delta", text: "\n\n" });
        break;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        if (event.delta) emit({ type: "reasoning-delta", text: event.delta });
        break;
      case "response.output_item.added":
        if (event.item?.type === "function_call" && "call_id" in event.item) {
          if (event.item.id !== undefined) callIds.set(event.item.id, event.item.call_id);
          open.add(event.item.call_id);
          emit({ type: "tool-call-start", toolCallId: event.item.call_id, toolName: event.item.name });
        }
        break;
      case "response.function_call_arguments.delta": {
        const toolCallId = event.item_id === undefined ? undefined : callIds.get(event.item_id);
        if (toolCallId !== undefined && event.delta) emit({ type: "tool-call-delta", toolCallId, argumentsDelta: event.delta });
        break;
      }
      case "response.output_item.done":
        // Only a completed call ends here; one the limit cut is settled by the final response.
        if (event.item?.type === "function_call" && "call_id" in event.item && (event.item as WireFunctionCall).status === "completed") {
          open.delete(event.item.call_id);
          emit({ type: "tool-call-end", toolCallId: event.item.call_id });
        }
        break;
    }
  }
  if (final !== undefined) return final;
  throw new YokeError("PROVIDER_STREAM_CUT", `the response stream ended after ${received} event(s) without response.completed`, {
    details: { provider: "openai", events: received },
  });
}

function settleOpenCalls(open: Set<string>, final: WireResponse, emit: (part: ModelStreamPart) => void): void {
  for (const toolCallId of open) {
    const item = final.output?.find(
      (candidate): candidate is WireFunctionCall => candidate.type === "function_call" && "call_id" in candidate && candidate.call_id === toolCallId,
    );
    const cut = item !== undefined && isCutFunctionCall(item, final);
    emit({ type: cut ? "tool-call-truncated" : "tool-call-end", toolCallId });
  }
  open.clear();
}

// `response.failed` names its error in `response.error`: the same table as an HTTP error or an
// `error` event classifies it, so it is retried exactly when they would be.
function failed(response: WireResponse | undefined): YokeError {
  const error = response?.error;
  const types = [error?.code, error?.type].filter((value): value is string => typeof value === "string" && value !== "");
  const named = classifyProviderError(types, undefined);
  const message = error?.message ?? "the response failed";
  const details = { provider: "openai", type: types[0] ?? "unknown", kind: named.kind, responseId: response?.id };
  return new YokeError(named.code, message, { details, retryable: named.retryable });
}
