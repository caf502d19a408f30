import { YokeError, classifyProviderError, type ModelStreamPart } from "@yoke/protocol";
import type { WireOutputItem, WireResponse } from "./responses-response.js";

/** The subset of Responses API stream events the adapter reads. */
export interface WireResponsesEvent {
  type: string;
  delta?: string;
  item_id?: string;
  output_index?: number;
  item?: WireOutputItem;
  response?: WireResponse;
}

const FINAL = new Set(["response.completed", "response.incomplete"]);

/**
 * Consumes a Responses API event stream: forwards text, reasoning-summary and tool-argument
 * deltas as stream parts, and returns the final `Response` of `response.completed` or
 * `response.incomplete`. A stream that ends without one was cut: PROVIDER_STREAM_CUT, and
 * nothing partial is returned. `response.failed` is an error with the response's own code.
 */
export async function consumeResponsesStream(
  events: AsyncIterable<WireResponsesEvent>,
  emit: ((part: ModelStreamPart) => void) | undefined,
): Promise<WireResponse> {
  const callIds = new Map<string, string>();
  let received = 0;
  let final: WireResponse | undefined;
  for await (const event of events) {
    received += 1;
    // Read on to the end of the body rather than returning: leaving early aborts the
    // request, and with it the kept-alive connection the next call would reuse.
    if (final !== undefined) continue;
    if (FINAL.has(event.type) && event.response !== undefined) {
      final = event.response;
      continue;
    }
    if (event.type === "response.failed") throw failed(event.response);
    if (emit === undefined) continue;
    switch (event.type) {
      case "response.output_text.delta":
      case "response.refusal.delta":
        if (event.delta) emit({ type: "text-delta", text: event.delta });
        break;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        if (event.delta) emit({ type: "reasoning-delta", text: event.delta });
        break;
      case "response.output_item.added":
        if (event.item?.type === "function_call" && "call_id" in event.item) {
          if (event.item.id !== undefined) callIds.set(event.item.id, event.item.call_id);
          emit({ type: "tool-call-start", toolCallId: event.item.call_id, toolName: event.item.name });
        }
        break;
      case "response.function_call_arguments.delta": {
        const toolCallId = event.item_id === undefined ? undefined : callIds.get(event.item_id);
        if (toolCallId !== undefined && event.delta) emit({ type: "tool-call-delta", toolCallId, argumentsDelta: event.delta });
        break;
      }
      case "response.output_item.done":
        if (event.item?.type === "function_call" && "call_id" in event.item) emit({ type: "tool-call-end", toolCallId: event.item.call_id });
        break;
    }
  }
  if (final !== undefined) return final;
  throw new YokeError("PROVIDER_STREAM_CUT", `the response stream ended after ${received} event(s) without response.completed`, {
    details: { provider: "openai", events: received },
  });
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
