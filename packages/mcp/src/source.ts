import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type JsonValue,
  type SourceToolDefinition,
  type ToolCallContext,
  type ToolOrigin,
  type ToolOutput,
  type ToolSourceV1,
  YokeError,
  type YokeErrorDetailsByCode,
} from "@yoke/protocol";
import { type McpToolLike, toolDefinitions, toolOutput } from "./content.js";
import { type McpSdk, loadSdk } from "./sdk.js";

/** A tool source over stdio: its origin is the spawned command line and the names of the variables passed. */
export interface McpStdioSource extends ToolSourceV1 {
  readonly origin: Extract<ToolOrigin, { kind: "mcp-stdio" }>;
}

/** A tool source over Streamable HTTP: its origin is the endpoint URL. */
export interface McpHttpSource extends ToolSourceV1 {
  readonly origin: Extract<ToolOrigin, { kind: "mcp-http" }>;
}

/** Who this client says it is in `initialize` (MCP `clientInfo`). */
export interface McpClientInfo {
  readonly name: string;
  readonly version: string;
}

export const DEFAULT_CLIENT_INFO: McpClientInfo = { name: "yoke", version: "0.1.0" };

/** JSON-RPC error codes (MCP's ErrorCode). */
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;
/** Codes with which a server refuses a request it did not run: parse error, invalid request, method not found, invalid params. */
const REFUSED = new Set([-32700, -32600, -32601, -32602]);
/** The SDK's per-request timer would cut a call at 60 s; the call's own signal is its deadline, so the timer is set past any. */
const NO_SDK_TIMEOUT = 2_147_483_647;

/** An error the transport raised while sending (so the SDK's rejection says which side of "sent" it came from). */
class SendFailure extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = "SendFailure";
  }
}

/** What a transport kind gives the shared client: the SDK transport, and how to read its send errors. */
export interface OpenedTransport {
  readonly transport: Transport;
  /** True when a send error proves the message never reached the server (nothing ran). */
  notDelivered(error: unknown): boolean;
  /** Polite goodbye before closing (HTTP: end the session); errors are ignored. */
  farewell?(): Promise<void>;
}

/** A transport kind: its canonical origin, a label for messages, and how to open it. */
export interface TransportKind<O extends ToolOrigin = ToolOrigin> {
  readonly origin: O;
  readonly label: string;
  readonly clientInfo: McpClientInfo;
  /** Startup and `initialize` deadline handed to the SDK, if any (default: the SDK's 60 s). */
  readonly startupTimeoutMs?: number | undefined;
  open(sdk: McpSdk): OpenedTransport;
}

/** Something in flight on a connection that a protocol violation must settle. */
interface Pending {
  broken(reason: string): void;
}

interface Connection {
  readonly client: Client;
  readonly opened: OpenedTransport;
  lost: boolean;
  readonly pending: Set<Pending>;
}

function isZodError(error: unknown): boolean {
  return error instanceof Error && (error.name === "ZodError" || error.name === "$ZodError" || Array.isArray((error as { issues?: unknown }).issues));
}

/** An error the SDK reports for a message the server should never have sent. */
function protocolViolation(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error.message.startsWith("Received a response for an unknown message ID")) return "a response for an unknown request id";
  if (error.message.startsWith("Unknown message type")) return "a message that is not JSON-RPC";
  if (error instanceof SyntaxError) return "a message that is not JSON";
  if (isZodError(error)) return "a message that is not valid JSON-RPC";
  return undefined;
}

function codeOf(error: unknown, sdk: McpSdk): number | undefined {
  return error instanceof sdk.McpError ? error.code : undefined;
}

/**
 * The client side every MCP tool source shares: one SDK `Client` per connection, typed errors
 * (see ToolSourceV1), `tools/list` paging, `notifications/tools/list_changed`.
 */
export class McpToolSource<O extends ToolOrigin = ToolOrigin> implements ToolSourceV1 {
  readonly specificationVersion = "v1" as const;
  readonly origin: O;
  readonly #kind: TransportKind<O>;
  readonly #listeners = new Set<() => void>();
  #sdk: McpSdk | undefined;
  #connection: Connection | undefined;
  #connecting: Promise<void> | undefined;

  constructor(kind: TransportKind<O>) {
    this.#kind = kind;
    this.origin = kind.origin;
  }

  connect(signal?: AbortSignal): Promise<void> {
    if (this.#connection !== undefined && !this.#connection.lost) return Promise.resolve();
    this.#connecting ??= this.#open(signal).finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #open(signal: AbortSignal | undefined): Promise<void> {
    const sdk = (this.#sdk ??= await loadSdk());
    const label = this.#kind.label;
    if (signal?.aborted) throw cancelled(signal, `connecting to ${label}`);
    let opened: OpenedTransport;
    try {
      opened = this.#kind.open(sdk);
    } catch (error) {
      throw new YokeError("TOOL_SOURCE_UNAVAILABLE", `${label} could not be started: ${messageOf(error)}`, { cause: error, details: this.#details() });
    }
    const send = opened.transport.send.bind(opened.transport);
    opened.transport.send = (message, options) =>
      send(message, options).catch((error: unknown) => {
        throw new SendFailure(error);
      });
    const client = new sdk.Client({ name: this.#kind.clientInfo.name, version: this.#kind.clientInfo.version }, { capabilities: {} });
    const connection: Connection = { client, opened, lost: false, pending: new Set() };
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
      for (const listener of [...this.#listeners]) {
        try {
          listener();
        } catch {
          // A listener's failure is its own; the other listeners still hear of the change.
        }
      }
    });
    client.onclose = () => {
      connection.lost = true;
    };
    client.onerror = (error) => {
      const violation = protocolViolation(error);
      if (violation !== undefined) this.#break(connection, violation);
    };
    try {
      await client.connect(opened.transport, {
        ...(signal === undefined ? {} : { signal }),
        ...(this.#kind.startupTimeoutMs === undefined ? {} : { timeout: this.#kind.startupTimeoutMs }),
      });
    } catch (error) {
      connection.lost = true;
      await client.close().catch(() => undefined);
      if (signal?.aborted) throw cancelled(signal, `connecting to ${label}`);
      throw new YokeError("TOOL_SOURCE_UNAVAILABLE", `${label} could not be started or did not initialize: ${messageOf(unwrap(error))}`, {
        cause: unwrap(error),
        details: this.#details(),
      });
    }
    if (connection.lost) {
      throw new YokeError("TOOL_SOURCE_UNAVAILABLE", `${label} closed the connection right after initializing`, { details: this.#details() });
    }
    this.#connection = connection;
  }

  /** The live connection, or TOOL_SOURCE_UNAVAILABLE. */
  #live(what: string): Connection {
    const connection = this.#connection;
    if (connection === undefined || connection.lost) {
      throw new YokeError(
        "TOOL_SOURCE_UNAVAILABLE",
        `${this.#kind.label} is not connected${connection?.lost ? " (the connection was lost)" : ""}; ${what} was not sent (connect() again)`,
        { details: this.#details() },
      );
    }
    return connection;
  }

  #details(extra: { readonly tool?: string; readonly rpcCode?: number } = {}): YokeErrorDetailsByCode["TOOL_SOURCE_UNAVAILABLE"] {
    return { origin: this.origin.kind, source: this.#kind.label, ...extra };
  }

  /** A protocol violation: whatever is in flight is settled now, and the connection is dropped. */
  #break(connection: Connection, reason: string): void {
    if (connection.lost) return;
    connection.lost = true;
    for (const pending of [...connection.pending]) pending.broken(reason);
    void connection.client.close().catch(() => undefined);
  }

  /**
   * Runs one request on `connection`, settled early when the connection breaks the protocol
   * or `signal` aborts (the SDK request is then cancelled with `notifications/cancelled`).
   */
  #track<T>(
    connection: Connection,
    signal: AbortSignal | undefined,
    run: (signal: AbortSignal) => Promise<T>,
    failures: { broken(reason: string): YokeError; aborted(signal: AbortSignal): YokeError; failed(error: unknown): YokeError },
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const controller = new AbortController();
      let settled = false;
      const settle = (error: YokeError | undefined, value?: T): void => {
        if (settled) return;
        settled = true;
        connection.pending.delete(pending);
        signal?.removeEventListener("abort", onAbort);
        if (error === undefined) resolve(value as T);
        else {
          reject(error);
          if (!controller.signal.aborted) controller.abort(error);
        }
      };
      const pending: Pending = { broken: (reason) => settle(failures.broken(reason)) };
      const onAbort = (): void => settle(failures.aborted(signal!));
      connection.pending.add(pending);
      signal?.addEventListener("abort", onAbort, { once: true });
      run(controller.signal).then(
        (value) => settle(undefined, value),
        (error: unknown) => settle(failures.failed(error)),
      );
    });
  }

  async list(signal?: AbortSignal): Promise<readonly SourceToolDefinition[]> {
    const connection = this.#live("tools/list");
    const sdk = this.#sdk!;
    const label = this.#kind.label;
    if (signal?.aborted) throw cancelled(signal, `listing ${label}`);
    const tools: McpToolLike[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    do {
      const params = cursor === undefined ? {} : { cursor };
      const page = await this.#track(
        connection,
        signal,
        (requestSignal) => connection.client.request({ method: "tools/list", params }, sdk.ListToolsResultSchema, { signal: requestSignal }),
        {
          broken: (reason) => new YokeError("TOOL_SOURCE_INVALID", `${label} sent ${reason} while listing its tools`, { details: this.#details() }),
          aborted: (s) => cancelled(s, `listing ${label}`),
          failed: (error) => this.#listError(connection, error),
        },
      );
      tools.push(...(page.tools as McpToolLike[]));
      cursor = page.nextCursor;
      if (cursor !== undefined) {
        if (cursors.has(cursor)) {
          throw new YokeError("TOOL_SOURCE_INVALID", `${label} repeated the tools/list cursor ${JSON.stringify(cursor)}`, { details: this.#details() });
        }
        cursors.add(cursor);
      }
    } while (cursor !== undefined);
    return toolDefinitions(tools, label);
  }

  #listError(connection: Connection, error: unknown): YokeError {
    const sdk = this.#sdk!;
    const label = this.#kind.label;
    const cause = unwrap(error);
    const code = codeOf(error, sdk);
    if ((error instanceof SendFailure && connection.opened.notDelivered(cause)) || code === CONNECTION_CLOSED || code === REQUEST_TIMEOUT || connection.lost) {
      if (error instanceof SendFailure) connection.lost = true;
      return new YokeError("TOOL_SOURCE_UNAVAILABLE", `${label} did not answer tools/list: ${messageOf(cause)}`, { cause, details: this.#details() });
    }
    return new YokeError("TOOL_SOURCE_INVALID", `${label} answered tools/list with something that is not a tool list: ${messageOf(cause)}`, {
      cause,
      details: this.#details(),
    });
  }

  async call(name: string, input: JsonValue, context: ToolCallContext): Promise<ToolOutput> {
    const label = this.#kind.label;
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      throw new YokeError("TOOL_INPUT_INVALID", `MCP tool arguments are a JSON object; ${name} was given ${Array.isArray(input) ? "an array" : typeof input}`, {
        details: this.#details({ tool: name }),
      });
    }
    const connection = this.#live(`the call of ${name}`);
    const sdk = this.#sdk!;
    if (context.signal.aborted) throw cancelled(context.signal, `the call of ${name} (not sent)`);
    const unknown = (why: string, cause?: unknown): YokeError =>
      new YokeError("TOOL_OUTCOME_UNKNOWN", `the call of ${name} on ${label} was sent, but ${why}: its effect may or may not have happened`, {
        ...(cause === undefined ? {} : { cause }),
        details: this.#details({ tool: name }),
      });
    // `client.request`, not `client.callTool`: callTool also checks structured content against
    // the listed output schema and throws an error indistinguishable from a refused call, after
    // the tool ran. Checking output is the declaration's job; this reports what happened.
    const result = await this.#track(
      connection,
      context.signal,
      (signal) =>
        connection.client.request({ method: "tools/call", params: { name, arguments: input } }, sdk.CallToolResultSchema, { signal, timeout: NO_SDK_TIMEOUT }),
      {
        broken: (reason) => unknown(`the server sent ${reason}`),
        aborted: (signal) =>
          unknown(`no answer came before it was ${YokeError.hasCode(signal.reason, "TOOL_TIMEOUT") ? "timed out" : "cancelled"}`, signal.reason),
        failed: (error) => {
          const cause = unwrap(error);
          if (error instanceof SendFailure) {
            if (!connection.opened.notDelivered(cause)) return unknown(`sending it failed part-way (${messageOf(cause)})`, cause);
            connection.lost = true;
            return new YokeError("TOOL_SOURCE_UNAVAILABLE", `${label} could not be reached; the call of ${name} was not delivered: ${messageOf(cause)}`, {
              cause,
              details: this.#details({ tool: name }),
            });
          }
          const code = codeOf(error, sdk);
          if (code === CONNECTION_CLOSED) return unknown("the connection closed before the answer came", cause);
          if (code === REQUEST_TIMEOUT) return unknown("no answer came in time", cause);
          if (code !== undefined && REFUSED.has(code)) {
            return new YokeError("TOOL_FAILED", `${label} refused the call of ${name}: ${messageOf(cause)}`, {
              cause,
              details: this.#details({ tool: name, rpcCode: code }),
              retryable: false,
            });
          }
          if (code !== undefined) return unknown(`the server answered with error ${code} (${messageOf(cause)})`, cause);
          if (isZodError(cause)) return unknown("its answer is not a tool result", cause);
          return unknown(messageOf(cause), cause);
        },
      },
    );
    try {
      return toolOutput(result, name);
    } catch (error) {
      if (YokeError.isInstance(error) && error.code === "TOOL_OUTCOME_UNKNOWN") throw unknown(error.message, error);
      throw error;
    }
  }

  onListChanged(listener: () => void): () => void {
    const entry = () => listener();
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  async close(): Promise<void> {
    await this.#connecting?.catch(() => undefined);
    const connection = this.#connection;
    this.#connection = undefined;
    if (connection === undefined) return;
    const wasLive = !connection.lost;
    if (wasLive) await connection.opened.farewell?.().catch(() => undefined);
    connection.lost = true;
    await connection.client.close().catch(() => undefined);
  }
}

function unwrap(error: unknown): unknown {
  return error instanceof SendFailure ? error.cause : error;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function cancelled(signal: AbortSignal, what: string): YokeError {
  if (YokeError.isInstance(signal.reason)) return signal.reason;
  return new YokeError("CANCELLED", `${what} was cancelled`, { cause: signal.reason });
}
