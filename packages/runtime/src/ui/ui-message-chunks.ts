/**
 * The chunks of the AI SDK's UI message stream protocol (v1, header
 * `x-vercel-ai-ui-message-stream: v1`) that a run's stream becomes: the subset Yoke writes,
 * typed here so that `@yoke/runtime` needs no dependency on `ai`. Each is one SSE
 * `data:` line; a client (`useChat`, `readUIMessageStream`) folds them into one assistant
 * message.
 */
export type UIMessageChunk =
  | { readonly type: "start"; readonly messageId?: string; readonly messageMetadata?: unknown }
  | { readonly type: "start-step" }
  | { readonly type: "finish-step" }
  /** Removes the parts of the current step: a model call attempt that failed and is retried. */
  | { readonly type: "reset-step" }
  | { readonly type: "text-start"; readonly id: string }
  | { readonly type: "text-delta"; readonly id: string; readonly delta: string }
  | { readonly type: "text-end"; readonly id: string }
  | { readonly type: "reasoning-start"; readonly id: string }
  | { readonly type: "reasoning-delta"; readonly id: string; readonly delta: string }
  | { readonly type: "reasoning-end"; readonly id: string }
  | { readonly type: "tool-input-start"; readonly toolCallId: string; readonly toolName: string }
  | { readonly type: "tool-input-delta"; readonly toolCallId: string; readonly inputTextDelta: string }
  | { readonly type: "tool-input-available"; readonly toolCallId: string; readonly toolName: string; readonly input: unknown }
  | { readonly type: "tool-input-error"; readonly toolCallId: string; readonly toolName: string; readonly input: unknown; readonly errorText: string }
  | { readonly type: "tool-approval-request"; readonly approvalId: string; readonly toolCallId: string; readonly reason?: string }
  | { readonly type: "tool-approval-response"; readonly approvalId: string; readonly approved: boolean; readonly reason?: string }
  | { readonly type: "tool-output-available"; readonly toolCallId: string; readonly output: unknown }
  | { readonly type: "tool-output-error"; readonly toolCallId: string; readonly errorText: string }
  | { readonly type: "tool-output-denied"; readonly toolCallId: string }
  | { readonly type: `data-${string}`; readonly data: unknown; readonly transient?: boolean }
  | { readonly type: "error"; readonly errorText: string }
  | {
      readonly type: "finish";
      readonly finishReason?: "stop" | "length" | "content-filter" | "tool-calls" | "error" | "interrupted" | "other";
      readonly messageMetadata?: unknown;
    };

/** The response headers of a UI message stream, as the AI SDK's `UI_MESSAGE_STREAM_HEADERS`. */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
});
