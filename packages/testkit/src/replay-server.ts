import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { YokeError } from "@yoke/protocol";

/**
 * One recorded HTTP answer the replay server gives, in order, to the next request.
 *
 * - `body`: a JSON body (status defaults to 200).
 * - `sse`: a server-sent-event stream, served verbatim as `text/event-stream`. Give the
 *   recorded wire text, or events to encode (`{ event, data }`, data as JSON or a string).
 * - `cut`: after the stream text is written, destroy the socket instead of ending the
 *   response: the client sees a connection cut mid-stream.
 * - `hang`: write the headers and the stream text, then keep the response open until the
 *   client goes away (for cancellation tests).
 *
 * @example
 * ```ts
 * const server = await createReplayServer([
 *   { status: 429, headers: { "retry-after": "2" }, body: { error: { message: "slow down" } } },
 *   { sse: "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n" },
 * ]);
 * ```
 */
export interface ReplayExchange {
  status?: number;
  headers?: Readonly<Record<string, string>>;
  body?: unknown;
  sse?: string | readonly ReplaySseEvent[];
  cut?: boolean;
  hang?: boolean;
  /** Only answer a request to this path (e.g. `/v1/responses`); another path fails the request with 599. */
  path?: string;
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
export async function createReplayServer(exchanges: readonly ReplayExchange[] = []): Promise<ReplayServer> {
  const queue = [...exchanges];
  const requests: ReplayRequest[] = [];
  const waiters: { count: number; resolve: (request: ReplayRequest) => void }[] = [];
  const open = new Set<ServerResponse>();

  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      const record = {
        method: incoming.method ?? "GET",
        path: incoming.url ?? "/",
        headers: { ...incoming.headers },
        rawBody,
        body: parseBody(rawBody),
        clientAborted: false,
      };
      requests.push(record);
      response.on("close", () => {
        if (!response.writableFinished) record.clientAborted = true;
        open.delete(response);
      });
      open.add(response);
      serve(queue.shift(), incoming, response);
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

function serve(exchange: ReplayExchange | undefined, incoming: IncomingMessage, response: ServerResponse): void {
  if (exchange === undefined || (exchange.path !== undefined && incoming.url?.split("?")[0] !== exchange.path)) {
    const reason = exchange === undefined ? "no recorded exchange left" : `expected a request to ${exchange.path}`;
    response.writeHead(599, { "content-type": "application/json" }).end(JSON.stringify({ error: { type: "replay_mismatch", message: reason } }));
    return;
  }
  const headers: Record<string, string> = { ...exchange.headers };
  if (exchange.sse !== undefined) {
    const text = typeof exchange.sse === "string" ? exchange.sse : encodeSse(exchange.sse);
    response.writeHead(exchange.status ?? 200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers });
    response.flushHeaders();
    if (text.length > 0) response.write(text);
    if (exchange.hang) return;
    // Let the written bytes reach the client before the socket goes away.
    if (exchange.cut) response.socket?.end(() => response.destroy());
    else response.end();
    return;
  }
  const body = exchange.body === undefined ? "" : JSON.stringify(exchange.body);
  response.writeHead(exchange.status ?? 200, { "content-type": "application/json", ...headers });
  if (exchange.hang) return void response.flushHeaders();
  response.end(body);
}

function parseBody(raw: string): unknown {
  if (raw === "") return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}
