import {
  YokeError,
  type JsonValue,
  type SourceToolDefinition,
  type ToolCallContext,
  type ToolOrigin,
  type ToolOutput,
  type ToolSourceV1,
} from "@yoke/protocol";

/** Options of `createStaticToolSource`. */
export interface StaticToolSourceOptions {
  /** Default `{ kind: "mcp-http", url: "http://127.0.0.1:1/static" }` (a remote origin: nothing is fetched). */
  readonly origin?: ToolOrigin;
  /** What `list` returns until `setTools` changes it. */
  readonly tools: readonly SourceToolDefinition[];
  /** Answers a call. Default: `"<name> called"`. */
  readonly handler?: (name: string, input: JsonValue, context: ToolCallContext) => Promise<ToolOutput> | ToolOutput;
  /** `connect` rejects with this error (a source that cannot start). */
  readonly connectError?: YokeError;
}

/** An in-process tool source whose listing a test changes: what a registry's tests and contract suite use instead of a server. */
export interface StaticToolSource extends ToolSourceV1 {
  /** Replaces the listing; unless `notify` is false, tells the subscribers the list changed (as `notifications/tools/list_changed` does). */
  setTools(tools: readonly SourceToolDefinition[], options?: { readonly notify?: boolean }): void;
  /** Makes the next `list` calls reject with this error (undefined: list again). */
  failListing(error: YokeError | undefined): void;
  /** Every call received, in order. */
  readonly calls: readonly { readonly name: string; readonly input: JsonValue }[];
  /** How many times `list` ran. */
  readonly listCount: number;
  readonly connected: boolean;
  readonly closed: boolean;
}

/**
 * A `ToolSourceV1` held in memory: lists what it was given, calls a handler, and announces a
 * changed listing like an MCP server's `notifications/tools/list_changed`. Calls are refused
 * (TOOL_SOURCE_UNAVAILABLE) before `connect` and after `close`; a call of a tool it does not
 * list now is TOOL_FAILED, as a server's error result would be.
 *
 * @example
 * ```ts
 * const source = createStaticToolSource({ tools: [{ name: "echo", description: "Echo.", inputSchema: { type: "object" } }] });
 * await registry.addSource(source, { trustDomain: "third-party" });
 * source.setTools([{ name: "echo", description: "Echo, now louder.", inputSchema: { type: "object" } }]); // a drift
 * ```
 */
export function createStaticToolSource(options: StaticToolSourceOptions): StaticToolSource {
  let tools = [...options.tools];
  let listError: YokeError | undefined;
  let connected = false;
  let closed = false;
  let listCount = 0;
  const listeners = new Set<() => void>();
  const calls: { name: string; input: JsonValue }[] = [];
  const handler = options.handler ?? ((name: string) => `${name} called`);
  return {
    specificationVersion: "v1",
    origin: options.origin ?? { kind: "mcp-http", url: "http://127.0.0.1:1/static" },
    async connect() {
      if (options.connectError) throw options.connectError;
      if (closed) throw new YokeError("TOOL_SOURCE_UNAVAILABLE", "the static tool source is closed");
      connected = true;
    },
    async list() {
      if (!connected || closed) throw new YokeError("TOOL_SOURCE_UNAVAILABLE", "the static tool source is not connected");
      listCount += 1;
      if (listError) throw listError;
      return tools.map((tool) => structuredClone(tool));
    },
    async call(name, input, context) {
      if (!connected || closed) throw new YokeError("TOOL_SOURCE_UNAVAILABLE", "the static tool source is not connected");
      calls.push({ name, input });
      if (!tools.some((tool) => tool.name === name)) throw new YokeError("TOOL_FAILED", `the static tool source has no tool ${name}`);
      return handler(name, input, context);
    },
    onListChanged(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    async close() {
      closed = true;
      listeners.clear();
    },
    setTools(next, { notify = true } = {}) {
      tools = [...next];
      if (notify) for (const listener of [...listeners]) listener();
    },
    failListing(error) {
      listError = error;
    },
    get calls() {
      return calls;
    },
    get listCount() {
      return listCount;
    },
    get connected() {
      return connected;
    },
    get closed() {
      return closed;
    },
  };
}
