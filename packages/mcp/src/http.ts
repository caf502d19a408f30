import { YokeError } from "@yoke/protocol";
import { DEFAULT_CLIENT_INFO, type McpClientInfo, type McpHttpSource, McpToolSource } from "./source.js";

/** Options of {@link mcpHttpSource}. */
export interface McpHttpSourceOptions {
  /** The server's Streamable HTTP endpoint (`http://127.0.0.1:3001/mcp`). Canonicalized, it is the origin. */
  readonly url: string | URL;
  /**
   * Headers sent with every request (an `Authorization` the server needs, say). Never part of
   * the origin, never logged; the SDK does not carry them to another origin on a redirect. Only
   * what is given here is sent: the harness forwards none of its own credentials.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /** The name and version the client gives in `initialize` (default `{ name: "yoke", version: "0.1.0" }`). */
  readonly clientInfo?: McpClientInfo;
  /** How long `initialize` may take before `connect` rejects TOOL_SOURCE_UNAVAILABLE (default: the SDK's 60 s). */
  readonly startupTimeoutMs?: number;
}

/** Network errors that prove a request never reached the server. */
const NOT_CONNECTED = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH", "UND_ERR_CONNECT_TIMEOUT", "ECONNABORTED"]);

function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = current.cause;
  }
  return undefined;
}

/**
 * An MCP server over Streamable HTTP, as a Yoke tool source (`ToolSourceV1`). Its origin is
 * `{ kind: "mcp-http", url }` with the URL canonicalized; headers are never part of it. A URL
 * with a user name or password is refused (CONFIG_INVALID): put credentials in `headers`.
 *
 * Errors: a server that cannot be reached or does not initialize rejects `connect` with
 * TOOL_SOURCE_UNAVAILABLE, and so does a call refused before the server could read it
 * (connection refused, an HTTP 4xx); a call with no answer by `context.signal`, a connection
 * that breaks after the request went out, or an answer that is not a tool result rejects
 * TOOL_OUTCOME_UNKNOWN; a tool's own `isError` result rejects TOOL_FAILED with its text.
 * Needs the optional peer `@modelcontextprotocol/sdk` (DEPENDENCY_MISSING otherwise).
 *
 * @example
 * ```ts
 * import { mcpHttpSource } from "@yoke/mcp";
 *
 * const search = mcpHttpSource({ url: "http://127.0.0.1:3001/mcp", headers: { authorization: `Bearer ${token}` } });
 * await search.connect();
 * const result = await search.call("echo", { message: "hi" }, context);
 * await search.close();
 * ```
 */
export function mcpHttpSource(options: McpHttpSourceOptions): McpHttpSource {
  const { headers = {}, clientInfo = DEFAULT_CLIENT_INFO, startupTimeoutMs } = options;
  let url: URL;
  try {
    url = new URL(options.url);
  } catch (error) {
    throw new YokeError("CONFIG_INVALID", `mcpHttpSource needs a URL; ${JSON.stringify(String(options.url))} is not one`, { cause: error });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new YokeError("CONFIG_INVALID", `mcpHttpSource speaks HTTP(S); ${url.protocol} is not supported`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new YokeError("CONFIG_INVALID", "mcpHttpSource: a URL with credentials would put them in the origin; pass them in headers");
  }
  url.hash = "";
  const href = url.href;
  return new McpToolSource({
    origin: { kind: "mcp-http", url: href },
    label: `MCP server ${href}`,
    clientInfo,
    startupTimeoutMs,
    open(sdk) {
      const transport = new sdk.StreamableHTTPClientTransport(new URL(href), { requestInit: { headers: { ...headers } } });
      return {
        transport,
        notDelivered: (error) => {
          if (error instanceof sdk.StreamableHTTPError) return typeof error.code === "number" && error.code >= 400 && error.code < 500;
          const code = causeCode(error);
          return code !== undefined && NOT_CONNECTED.has(code);
        },
        farewell: () => transport.terminateSession(),
      };
    },
  });
}
