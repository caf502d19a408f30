import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { YokeError } from "@yoke/protocol";
import { exchangeSeed, replaySplitOffsets } from "./replay-split.js";

/**
 * One recorded HTTP answer the replay server gives, in order, to the next request. The body
 * is one of (first wins):
 *
 * - `sse`: a server-sent-event stream, served as `text/event-stream`. Give the recorded wire
 *   bytes (a `Uint8Array`, or a string sent as its UTF-8 bytes), or events to encode
 *   (`{ event, data }`, data as JSON or a string).
 * - `rawBody`: the body exactly as recorded (bytes, or a string sent as its UTF-8 bytes), with
 *   a `content-length`; `content-type` is `application/json` unless `headers` say otherwise.
 * - `body`: a value sent as `JSON.stringify(body)` (status defaults to 200). Prefer `rawBody`
 *   for recorded traffic: serializing again loses whitespace, escapes and number spelling.
 *
 * Then how the response ends:
 *
 * - `destroyAfter`: destroy the socket once this many body bytes (or the whole `"body"`) were
 *   sent — no end of the chunked body, no further bytes: the client sees a transport error
 *   (`TypeError: terminated` from `fetch`). A body with a `content-length` cut short fails the
 *   same way; one sent whole is complete for the client whatever happens to the socket.
 * - `cut: true`: the same as `destroyAfter: "body"`.
 * - `hang`: write the headers and the stream, then keep the response open until the client
 *   goes away (for cancellation tests). A non-stream body is not written at all.
 *
 * The body is written in one piece, unless the server has a split `seed` or the exchange
 * gives `splitAt`: then each piece is flushed to the socket before the next is written.
 *
 * @example
 * ```ts
 * const server = await createReplayServer([
 *   { status: 429, headers: { "retry-after": "2" }, rawBody: '{"error":{"message":"slow down"}}' },
 *   { sse: "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n", destroyAfter: 20 },
 * ]);
 * ```
 */
export interface ReplayExchange {
  status?: number;
  headers?: Readonly<Record<string, string>>;
  body?: unknown;
  rawBody?: string | Uint8Array;
  sse?: string | Uint8Array | readonly ReplaySseEvent[];
  /** Byte offsets at which to split the body into separate writes (overrides the server's seed). */
  splitAt?: readonly number[];
  destroyAfter?: number | "body";
  cut?: boolean;
  hang?: boolean;
  /** Only answer a request to this path (e.g. `/v1/responses`); another path fails the request with 599. */
  path?: string;
}

/**
 * Options of a replay server.
 *
 * @example
 * ```ts
 * // Every body split at offsets drawn from seed 3: reproducible, different per exchange.
 * const server = await createReplayServer([{ sse: recorded }], { seed: 3 });
 * ```
 */
export interface ReplayServerOptions {
  /**
   * Split every body into separately flushed writes at offsets drawn from this seed (see
   * `replaySplitOffsets`; the `n`-th body served uses `exchangeSeed(seed, n)`). Without a
   * seed a body goes out in one write.
   */
  seed?: number;
}

/** One server-sent event. `data` that is not a string is sent as JSON. */
export interface ReplaySseEvent {
  event?: string;
  data: unknown;
}

/** A request the server received, with its body parsed as JSON when it was JSON. */
export interface ReplayRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly rawBody: string;
  readonly body: unknown;
  /** True when the client closed the connection before the response was complete. */
  readonly clientAborted: boolean;
  /** The offsets at which the response body was split into writes (empty: one write, or no body). */
  readonly splitAt: readonly number[];
}

/**
 * A loopback HTTP server that replays recorded wire traffic to a real SDK client. Every
 * request consumes the next queued exchange; a request with none left is answered 599 and
 * still counted, so a test can assert that no second request was ever made.
 *
 * @example
 * ```ts
 * const server = await createReplayServer([{ sse: readFileSync("text.sse", "utf8") }]);
 * const client = new OpenAI({ apiKey: "test", baseURL: server.url + "/v1", maxRetries: 0 });
 * // … call the client …
 * expect(server.requests).toHaveLength(1);
 * expect(server.requests[0]!.body).toMatchInlineSnapshot();
 * await server.close();
 * ```
 */
export interface ReplayServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  /** Requests received, in order. */
  readonly requests: readonly ReplayRequest[];
  /** Exchanges not yet served. */
  readonly remaining: number;
  /** Resolves when the server has received `count` requests (default: one more than now). */
  waitForRequest(count?: number): Promise<ReplayRequest>;
  /** Queues more exchanges after the ones already queued. */
  enqueue(...exchanges: ReplayExchange[]): void;
  /** Throws PROVIDER_UNCONSUMED_STEPS when exchanges remain unserved. */
  assertConsumed(): void;
  close(): Promise<void>;
}

/** Encodes events as server-sent-event wire text. */
export function encodeSse(events: readonly ReplaySseEvent[]): string {
  return events
    .map((item) => {
      const data = typeof item.data === "string" ? item.data : JSON.stringify(item.data);
      const lines = item.event === undefined ? [] : [`event: ${item.event}`];
      for (const line of data.split("\n")) lines.push(`data: ${line}`);
      return `${lines.join("\n")}\n\n`;
    })
    .join("");
}

/** Starts a replay server on 127.0.0.1 with an OS-chosen port. */
export async function createReplayServer(exchanges: readonly ReplayExchange[] = [], options: ReplayServerOptions = {}): Promise<ReplayServer> {
  const queue = [...exchanges];
  let served = 0;
  const requests: ReplayRequest[] = [];
  const waiters: { count: number; resolve: (request: ReplayRequest) => void }[] = [];
  const open = new Set<ServerResponse>();

  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      const record: { -readonly [Key in keyof ReplayRequest]: ReplayRequest[Key] } = {
        method: incoming.method ?? "GET",
        path: incoming.url ?? "/",
        headers: { ...incoming.headers },
        rawBody,
        body: parseBody(rawBody),
        clientAborted: false,
        splitAt: [],
      };
      requests.push(record);
      const state = { destroyedByServer: false };
      response.on("close", () => {
        if (!response.writableFinished && !state.destroyedByServer) record.clientAborted = true;
        open.delete(response);
      });
      open.add(response);
      const index = served++;
      const seed = options.seed === undefined ? undefined : exchangeSeed(options.seed, index);
      // A malformed exchange (say, an invalid header) fails this response, not the server.
      serve(queue.shift(), incoming, response, seed, record, state).catch(() => response.destroy());
      for (const waiter of waiters.splice(0)) {
        if (requests.length >= waiter.count) waiter.resolve(requests[waiter.count - 1]!);
        else waiters.push(waiter);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get remaining() {
      return queue.length;
    },
    waitForRequest(count = requests.length + 1) {
      const seen = requests[count - 1];
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    enqueue(...more) {
      queue.push(...more);
    },
    assertConsumed() {
      if (queue.length > 0) {
        throw new YokeError("PROVIDER_UNCONSUMED_STEPS", `the replay server still has ${queue.length} unserved exchange(s)`, {
          details: { remaining: queue.length, requests: requests.length },
        });
      }
    },
    close() {
      for (const response of open) response.destroy();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface ServeState {
  destroyedByServer: boolean;
}

async function serve(
  exchange: ReplayExchange | undefined,
  incoming: IncomingMessage,
  response: ServerResponse,
  seed: number | undefined,
  record: { splitAt: readonly number[] },
  state: ServeState,
): Promise<void> {
  if (exchange === undefined || (exchange.path !== undefined && incoming.url?.split("?")[0] !== exchange.path)) {
    const reason = exchange === undefined ? "no recorded exchange left" : `expected a request to ${exchange.path}`;
    response.writeHead(599, { "content-type": "application/json" }).end(JSON.stringify({ error: { type: "replay_mismatch", message: reason } }));
    return;
  }
  const streaming = exchange.sse !== undefined;
  const bytes = bodyBytes(exchange);
  const headers: Record<string, string> = streaming
    ? { "content-type": "text/event-stream", "cache-control": "no-cache", ...exchange.headers }
    : { "content-type": "application/json", ...(exchange.hang ? {} : { "content-length": String(bytes.length) }), ...exchange.headers };
  response.writeHead(exchange.status ?? 200, headers);
  if (!streaming && exchange.hang) return void response.flushHeaders();
  if (streaming) response.flushHeaders();

  const destroyAfter = exchange.destroyAfter ?? (exchange.cut ? "body" : undefined);
  const sent = destroyAfter === undefined || destroyAfter === "body" ? bytes : bytes.subarray(0, Math.max(0, destroyAfter));
  const wanted = exchange.splitAt ?? (seed === undefined ? [] : replaySplitOffsets(sent, seed));
  const splitAt = [...new Set(wanted)].filter((offset) => Number.isInteger(offset) && offset > 0 && offset < sent.length).sort((a, b) => a - b);
  record.splitAt = splitAt;
  await writePieces(response, sent, splitAt);
  if (response.destroyed) return;
  if (exchange.hang) return;
  if (destroyAfter !== undefined) {
    state.destroyedByServer = true;
    response.destroy();
    return;
  }
  response.end();
}

const encoder = new TextEncoder();

function bodyBytes(exchange: ReplayExchange): Uint8Array {
  const { sse, rawBody, body } = exchange;
  if (sse !== undefined) return typeof sse === "string" ? encoder.encode(sse) : sse instanceof Uint8Array ? sse : encoder.encode(encodeSse(sse));
  if (rawBody !== undefined) return typeof rawBody === "string" ? encoder.encode(rawBody) : rawBody;
  return body === undefined ? new Uint8Array() : encoder.encode(JSON.stringify(body));
}

// Each piece is handed to the socket, then the event loop turns once (the client's read can
// run) before the next: the client sees the pieces as separate reads, with no timers.
async function writePieces(response: ServerResponse, bytes: Uint8Array, splitAt: readonly number[]): Promise<void> {
  let start = 0;
  for (const end of [...splitAt, bytes.length]) {
    if (end <= start) continue;
    if (response.destroyed) return;
    const piece = bytes.subarray(start, end);
    await new Promise<void>((resolve) => {
      response.once("close", resolve);
      response.write(piece, () => {
        response.off("close", resolve);
        resolve();
      });
    });
    if (end < bytes.length) await new Promise((resolve) => setImmediate(resolve));
    start = end;
  }
}

function parseBody(raw: string): unknown {
  if (raw === "") return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}
