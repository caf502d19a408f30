import { isDelta, type RunStreamPart } from "../stream/stream-parts.js";
import { UIChunks } from "./ui-chunks.js";
import { UI_MESSAGE_STREAM_HEADERS, type UIMessageChunk } from "./ui-message-chunks.js";

/** How a run's stream becomes a UI message stream. */
export interface UIMessageStreamOptions {
  /** The assistant message's id. Default: the run's id (what `approvalResponsesOf` reads back). */
  readonly messageId?: string;
  /**
   * Leave out the durable parts journaled before this seq: for a response that continues a
   * message the client already shows (after an approval, pass the run's journal length read
   * before `approve`), so nothing is written twice. Default 0: the whole run (a replay, as
   * `useChat`'s resume expects).
   */
  readonly since?: number;
}

/** A run's stream, as `harness.stream` and `harness.resumeStream` return it. */
export interface StreamOfRun extends AsyncIterable<RunStreamPart> {
  readonly runId: string;
}

/**
 * A run's stream as the AI SDK's UI message stream (the chunk objects; see
 * `toUIMessageStreamResponse` for the SSE response). Pulled: the run's stream is read only as
 * the returned stream is; cancelling it (a client that went away) detaches from the run,
 * which goes on.
 *
 * @example
 * ```ts
 * const chunks = toUIMessageStream(harness.stream("Weather in Paris?"));
 * for await (const chunk of chunks) console.log(chunk.type);
 * ```
 */
export function toUIMessageStream(stream: StreamOfRun, options: UIMessageStreamOptions = {}): ReadableStream<UIMessageChunk> {
  const iterator = stream[Symbol.asyncIterator]();
  const chunks = new UIChunks(stream.runId);
  const since = options.since ?? 0;
  let started = false;
  return new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      if (!started) {
        started = true;
        for (const chunk of chunks.start(options.messageId ?? stream.runId)) controller.enqueue(chunk);
      }
      // Reads until a part writes something: the consumer's pull is answered with at least one chunk or the end.
      for (;;) {
        const next = await iterator.next();
        if (next.done) {
          controller.close();
          return;
        }
        const part = next.value;
        const skipped = !isDelta(part) && "seq" in part && part.seq < since;
        const out = skipped ? [] : chunks.of(part);
        for (const chunk of out) controller.enqueue(chunk);
        if (part.type === "result" || part.type === "error") {
          controller.close();
          return;
        }
        if (out.length > 0) return;
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** UI message chunks as SSE bytes: one `data:` event per chunk, then `data: [DONE]`. */
export function toSSE(chunks: ReadableStream<UIMessageChunk>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return chunks.pipeThrough(
    new TransformStream<UIMessageChunk, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`));
      },
      flush(controller) {
        controller.enqueue(encoder.encode("data: [DONE]\n\n"));
      },
    }),
  );
}

/**
 * A run's stream as a web `Response` in the AI SDK's UI message stream protocol (SSE, header
 * `x-vercel-ai-ui-message-stream: v1`): return it from a route handler and `useChat` reads it
 * unchanged.
 *
 * @example
 * ```ts
 * export async function POST(request: Request) {
 *   const { messages } = await request.json();
 *   return toUIMessageStreamResponse(harness.stream(lastUserText(messages)));
 * }
 * ```
 */
export function toUIMessageStreamResponse(
  stream: StreamOfRun,
  options: UIMessageStreamOptions & { readonly headers?: Record<string, string>; readonly status?: number } = {},
): Response {
  return new Response(toSSE(toUIMessageStream(stream, options)), {
    status: options.status ?? 200,
    headers: { ...UI_MESSAGE_STREAM_HEADERS, ...options.headers },
  });
}

/** The part of `node:http`'s `ServerResponse` that `pipeUIMessageStreamToResponse` uses. */
export interface NodeResponseLike {
  writeHead(status: number, headers: Record<string, string>): unknown;
  write(chunk: Uint8Array): unknown;
  end(): unknown;
  on(event: "close", listener: () => void): unknown;
}

/**
 * Writes a run's stream to a `node:http` response in the UI message stream protocol. When the
 * client goes away first, the stream detaches and the run goes on. Resolves once the response ended.
 */
export async function pipeUIMessageStreamToResponse(
  stream: StreamOfRun,
  response: NodeResponseLike,
  options: UIMessageStreamOptions & { readonly headers?: Record<string, string> } = {},
): Promise<void> {
  const reader = toSSE(toUIMessageStream(stream, options)).getReader();
  let closed = false;
  response.on("close", () => {
    closed = true;
    void reader.cancel();
  });
  response.writeHead(200, { ...UI_MESSAGE_STREAM_HEADERS, ...options.headers });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || closed) break;
      response.write(value);
    }
  } finally {
    if (!closed) response.end();
  }
}
