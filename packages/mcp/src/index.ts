/**
 * @yoke/mcp — MCP servers as Yoke tool sources (`ToolSourceV1` of `@yoke/protocol`), through
 * the official `@modelcontextprotocol/sdk` (an optional peer): {@link mcpStdioSource} for a
 * server this process spawns, {@link mcpHttpSource} for one over Streamable HTTP. Register a
 * source with a tool registry (`registry.addSource(source, { trustDomain, tools })`); the
 * registering code declares each tool's side-effect class, since MCP annotations are hints only.
 */
export { mcpHttpSource } from "./http.js";
export type { McpHttpSourceOptions } from "./http.js";
export type { McpClientInfo, McpHttpSource, McpStdioSource } from "./source.js";
export { mcpStdioSource } from "./stdio.js";
export type { McpStdioSourceOptions } from "./stdio.js";
