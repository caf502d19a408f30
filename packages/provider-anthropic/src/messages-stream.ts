import { YokeError, type ModelStreamPart } from "@yoke/protocol";
import { isCutToolUse, parsesAsObject, type WireBlock, type WireMessage, type WireUsage } from "./messages-response.js";
import { isServerToolResultType, serverToolCall, serverToolResult, type JsonObject } from "./server-tools.js";

/** The subset of Messages API stream events the adapter reads. */
export interface WireStreamEvent {
  type: string;
  index?: number;
  message?: { id?: string; model?: string; usage?: WireUsage };
  content_block?: {
    type: string;
    text?: string;
    id?: string;
    name?: string;
    thinking?: string;
    signature?: string;
    data?: string;
    input?: unknown;
    [key: string]: unknown;
  };
  delta?: {
    type?: string;
    text?: string;
    partial_json?: string;
    thinking?: string;
    signature?: string;
    stop_reason?: string | null;
    stop_sequence?: string | null;
  };
  usage?: WireUsage;
}

/**
 * Folds a Messages API event stream (`message_start`, `content_block_start/delta/stop`,
 * `message_delta`, `message_stop`) into one message, forwarding text, thinking and
 * tool-input deltas as stream parts. A tool call ends with `tool-call-end` once its input is
 * a whole JSON object, or once the stop reason is known; the last one of a message the output
 * limit cut ends with `tool-call-truncated` instead (see `isCutToolUse`). Server tool calls
 * and results are emitted whole when their block stops. A stream that ends before
 * `message_stop` was cut: PROVIDER_STREAM_CUT, with nothing partial returned. (`error` events
 * are thrown by the SDK.)
 */
export async function consumeMessagesStream(events: AsyncIterable<WireStreamEvent>, emit: ((part: ModelStreamPart) => void) | undefined): Promise<WireMessage> {
  const message: WireMessage = { content: [] };
  const blocks: WireBlock[] = [];
  // Tool calls whose end part is not emitted yet, by block index.
  const open = new Set<number>();
  const endOpenCalls = () => {
    for (const index of open) {
      const block = blocks[index];
      if (block?.type !== "tool_use") continue;
      emit?.(
        isCutToolUse(blocks, index, message.stop_reason)
          ? { type: "tool-call-truncated", toolCallId: block.id }
          : { type: "tool-call-end", toolCallId: block.id },
      );
    }
    open.clear();
  };
  let received = 0;
  let stopped = false;
  for await (const event of events) {
    received += 1;
    if (stopped) continue;
    switch (event.type) {
      case "message_start":
        if (event.message?.id !== undefined) message.id = event.message.id;
        if (event.message?.model !== undefined) message.model = event.message.model;
        message.usage = { ...event.message?.usage };
        break;
      case "content_block_start": {
        const start = event.content_block;
        if (event.index === undefined || start === undefined) break;
        blocks[event.index] = startBlock(start);
        const block = blocks[event.index]!;
        if (block.type === "tool_use") {
          open.add(event.index);
          emit?.({ type: "tool-call-start", toolCallId: block.id, toolName: block.name });
        }
        if (block.type === "text" && block.text !== "") emit?.({ type: "text-delta", text: block.text });
        break;
      }
      case "content_block_delta": {
        const block = event.index === undefined ? undefined : blocks[event.index];
        const delta = event.delta;
        if (block === undefined || delta === undefined) break;
        if (delta.type === "text_delta" && block.type === "text" && delta.text) {
          block.text += delta.text;
          emit?.({ type: "text-delta", text: delta.text });
        } else if (delta.type === "input_json_delta" && block.type === "tool_use" && delta.partial_json) {
          block.rawInput += delta.partial_json;
          emit?.({ type: "tool-call-delta", toolCallId: block.id, argumentsDelta: delta.partial_json });
        } else if (delta.type === "input_json_delta" && block.type === "server_tool_use" && delta.partial_json) {
          block.rawInput += delta.partial_json;
        } else if (delta.type === "thinking_delta" && block.type === "thinking" && delta.thinking) {
          block.thinking += delta.thinking;
          emit?.({ type: "reasoning-delta", text: delta.thinking });
        } else if (delta.type === "signature_delta" && block.type === "thinking" && delta.signature) {
          block.signature += delta.signature;
        }
        break;
      }
      case "content_block_stop": {
        const block = event.index === undefined ? undefined : blocks[event.index];
        if (block?.type === "tool_use") block.closed = true;
        if (block?.type === "tool_use" && parsesAsObject(block.rawInput)) {
          // Whole: a call whatever the stop reason. Otherwise it waits for the stop reason.
          open.delete(event.index!);
          emit?.({ type: "tool-call-end", toolCallId: block.id });
        } else if (block?.type === "server_tool_use") {
          const part = serverToolCall(block);
          if (part !== undefined) emit?.({ type: "server-tool-call", part });
        } else if (block?.type === "server_tool_result") emit?.({ type: "server-tool-result", part: serverToolResult(block.raw) });
        break;
      }
      case "message_delta":
        if (event.delta?.stop_reason !== undefined) message.stop_reason = event.delta.stop_reason;
        if (event.delta?.stop_reason) endOpenCalls();
        if (event.delta?.stop_sequence !== undefined) message.stop_sequence = event.delta.stop_sequence;
        // message_delta usage is cumulative: it replaces what message_start reported.
        if (event.usage) message.usage = { ...message.usage, ...definedOnly(event.usage) };
        break;
      case "message_stop":
        stopped = true;
        break;
    }
  }
  // Read to the end of the body rather than returning at message_stop: leaving early aborts
  // the request, and with it the kept-alive connection the next call would reuse.
  if (stopped) {
    endOpenCalls();
    message.content = blocks.filter((block) => block !== undefined);
    return message;
  }
  throw new YokeError("PROVIDER_STREAM_CUT", `the message stream ended after ${received} event(s) without message_stop`, {
    details: { provider: "anthropic", events: received },
  });
}

/** Reads a non-streamed `Message` body into the same shape. */
export function readMessage(body: {
  id?: string;
  model?: string;
  stop_reason?: string | null;
  stop_sequence?: string | null;
  usage?: WireUsage;
  content?: NonNullable<WireStreamEvent["content_block"]>[];
}): WireMessage {
  const content = (body.content ?? []).map(startBlock);
  // A whole message's blocks ended, but for the last one, which the output limit may have cut.
  content.forEach((block, index) => {
    if (block.type === "tool_use") block.closed = index < content.length - 1;
  });
  const message: WireMessage = { content };
  if (body.id !== undefined) message.id = body.id;
  if (body.model !== undefined) message.model = body.model;
  if (body.stop_reason !== undefined) message.stop_reason = body.stop_reason;
  if (body.stop_sequence !== undefined) message.stop_sequence = body.stop_sequence;
  if (body.usage !== undefined) message.usage = body.usage;
  return message;
}

function startBlock(start: NonNullable<WireStreamEvent["content_block"]>): WireBlock {
  switch (start.type) {
    case "text":
      return { type: "text", text: start.text ?? "" };
    case "tool_use": {
      // A streamed block starts with input {} and fills it by deltas; a whole message has it set.
      const input = start.input;
      const rawInput = input === undefined || (typeof input === "object" && input !== null && Object.keys(input).length === 0) ? "" : JSON.stringify(input);
      return { type: "tool_use", id: start.id ?? "", name: start.name ?? "", rawInput, closed: false };
    }
    case "server_tool_use": {
      const input = start.input;
      const rawInput = input === undefined || (typeof input === "object" && input !== null && Object.keys(input).length === 0) ? "" : JSON.stringify(input);
      return { type: "server_tool_use", raw: start as JsonObject, rawInput };
    }
    case "thinking":
      return { type: "thinking", thinking: start.thinking ?? "", signature: start.signature ?? "" };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: start.data ?? "" };
    default:
      return isServerToolResultType(start.type) ? { type: "server_tool_result", raw: start as JsonObject } : { type: "other", original: start.type };
  }
}

function definedOnly(usage: WireUsage): WireUsage {
  return Object.fromEntries(Object.entries(usage).filter(([, value]) => value !== null && value !== undefined)) as WireUsage;
}
