import { YokeError } from "@yoke/protocol";
import { DEFAULT_CLIENT_INFO, type McpClientInfo, type McpStdioSource, McpToolSource } from "./source.js";

/** Options of {@link mcpStdioSource}. */
export interface McpStdioSourceOptions {
  /** The program to spawn (no shell). Part of the origin. */
  readonly command: string;
  /** Its arguments. Part of the origin. */
  readonly args?: readonly string[];
  /**
   * The names of the environment variables to pass to the server, their values read from
   * `process.env` when it starts (a name that is not set is left out). Only the names are part
   * of the origin. Nothing else of this process's environment reaches the server beyond the
   * SDK's minimal default (`getDefaultEnvironment`: `HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`,
   * `USER` on POSIX).
   */
  readonly env?: readonly string[];
  /** The server's working directory (default: this process's). Not part of the origin. */
  readonly cwd?: string;
  /**
   * Where the server's stderr goes: `"inherit"` (default, this process's stderr), `"ignore"`,
   * or a function called with each chunk of text. It is the server's untrusted text either way.
   */
  readonly stderr?: "inherit" | "ignore" | ((text: string) => void);
  /** The name and version the client gives in `initialize` (default `{ name: "yoke", version: "0.1.0" }`). */
  readonly clientInfo?: McpClientInfo;
  /** How long spawning plus `initialize` may take before `connect` rejects TOOL_SOURCE_UNAVAILABLE (default: the SDK's 60 s). */
  readonly startupTimeoutMs?: number;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What a stdio origin is for messages: the command line (values of variables never appear). */
function commandLine(command: string, args: readonly string[]): string {
  return [command, ...args].map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word))).join(" ");
}

/**
 * An MCP server this process spawns and talks to over stdio, as a Yoke tool source
 * (`ToolSourceV1`). Its origin is canonical — `{ kind: "mcp-stdio", command, args, env }` with
 * `env` the sorted variable names — so a registry identifies the server by what it runs, never
 * by a secret. No credential of the harness is forwarded: only the variables named in `env`
 * (and the SDK's minimal default environment) reach the server.
 *
 * Errors: a server that cannot be spawned, exits or does not initialize rejects `connect` with
 * TOOL_SOURCE_UNAVAILABLE; a call whose server dies, hangs past `context.signal`, or answers
 * with something that is not a tool result rejects TOOL_OUTCOME_UNKNOWN; a tool's own
 * `isError` result rejects TOOL_FAILED with its text; a malformed listing rejects
 * TOOL_SOURCE_INVALID. Needs the optional peer `@modelcontextprotocol/sdk` (DEPENDENCY_MISSING
 * otherwise).
 *
 * @example
 * ```ts
 * import { mcpStdioSource } from "@yoke/mcp";
 *
 * const files = mcpStdioSource({
 *   command: "npx",
 *   args: ["@modelcontextprotocol/server-filesystem", "/srv/data"],
 *   env: ["NODE_OPTIONS"], // names only; OPENAI_API_KEY and the like never reach the server
 * });
 * await files.connect();
 * console.log((await files.list()).map((tool) => tool.name));
 * await files.close();
 * ```
 */
export function mcpStdioSource(options: McpStdioSourceOptions): McpStdioSource {
  const { command, args = [], env = [], cwd, stderr = "inherit", clientInfo = DEFAULT_CLIENT_INFO, startupTimeoutMs } = options;
  if (typeof command !== "string" || command.length === 0) throw new YokeError("CONFIG_INVALID", "mcpStdioSource needs a command");
  for (const name of env) {
    if (!ENV_NAME.test(name)) {
      throw new YokeError("CONFIG_INVALID", `mcpStdioSource env lists variable names; ${JSON.stringify(name)} is not one (pass names, never values)`);
    }
  }
  const names = [...new Set(env)].sort();
  const label = `MCP server \`${commandLine(command, args)}\``;
  return new McpToolSource({
    origin: { kind: "mcp-stdio", command, args: [...args], env: names },
    label,
    clientInfo,
    startupTimeoutMs,
    open(sdk) {
      const passed: Record<string, string> = {};
      for (const name of names) {
        const value = process.env[name];
        if (value !== undefined) passed[name] = value;
      }
      const transport = new sdk.StdioClientTransport({
        command,
        args: [...args],
        env: passed,
        ...(cwd === undefined ? {} : { cwd }),
        stderr: typeof stderr === "function" ? "pipe" : stderr,
      });
      if (typeof stderr === "function") transport.stderr?.on("data", (chunk: Buffer | string) => stderr(chunk.toString()));
      return {
        transport,
        // stdio writes into a pipe: only a send refused before writing proves the server never read it.
        notDelivered: (error) => error instanceof Error && error.message === "Not connected",
      };
    },
  });
}
