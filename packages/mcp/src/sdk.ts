import { YokeError } from "@yoke/protocol";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResultSchema, ListToolsResultSchema, McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

/** The parts of `@modelcontextprotocol/sdk` this package uses, loaded on first connect (it is an optional peer). */
export interface McpSdk {
  readonly Client: typeof Client;
  readonly StdioClientTransport: typeof StdioClientTransport;
  readonly StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  readonly StreamableHTTPError: typeof StreamableHTTPError;
  readonly McpError: typeof McpError;
  readonly CallToolResultSchema: typeof CallToolResultSchema;
  readonly ListToolsResultSchema: typeof ListToolsResultSchema;
  readonly ToolListChangedNotificationSchema: typeof ToolListChangedNotificationSchema;
  /** The variables the SDK passes to every stdio server (`getDefaultEnvironment`). */
  readonly getDefaultEnvironment: () => Record<string, string>;
}

export const SDK_PACKAGE = "@modelcontextprotocol/sdk";

/** How a module is imported; a parameter so a test can stand for an installation without the SDK. */
export type Importer = (specifier: string) => Promise<unknown>;

const nativeImport: Importer = (specifier) => import(specifier);

let loaded: Promise<McpSdk> | undefined;

/**
 * Loads the SDK once. Rejects DEPENDENCY_MISSING (details.package names it) when it is not
 * installed.
 */
export function loadSdk(importer: Importer = nativeImport): Promise<McpSdk> {
  if (importer !== nativeImport) return importSdk(importer);
  loaded ??= importSdk(importer).catch((error: unknown) => {
    loaded = undefined;
    throw error;
  });
  return loaded;
}

async function importSdk(importer: Importer): Promise<McpSdk> {
  try {
    const [client, stdio, http, types] = (await Promise.all([
      importer(`${SDK_PACKAGE}/client/index.js`),
      importer(`${SDK_PACKAGE}/client/stdio.js`),
      importer(`${SDK_PACKAGE}/client/streamableHttp.js`),
      importer(`${SDK_PACKAGE}/types.js`),
    ])) as [
      typeof import("@modelcontextprotocol/sdk/client/index.js"),
      typeof import("@modelcontextprotocol/sdk/client/stdio.js"),
      typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
      typeof import("@modelcontextprotocol/sdk/types.js"),
    ];
    return {
      Client: client.Client,
      StdioClientTransport: stdio.StdioClientTransport,
      getDefaultEnvironment: stdio.getDefaultEnvironment,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      StreamableHTTPError: http.StreamableHTTPError,
      McpError: types.McpError,
      CallToolResultSchema: types.CallToolResultSchema,
      ListToolsResultSchema: types.ListToolsResultSchema,
      ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    };
  } catch (error) {
    throw new YokeError("DEPENDENCY_MISSING", `MCP tool sources need the optional peer dependency ${SDK_PACKAGE}: install it (npm install ${SDK_PACKAGE})`, {
      cause: error,
      details: { package: SDK_PACKAGE },
    });
  }
}
