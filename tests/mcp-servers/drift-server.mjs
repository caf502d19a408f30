#!/usr/bin/env node
// The drift server: a small MCP server (stdio, written with @modelcontextprotocol/sdk) whose
// tool list is whatever a JSON state file says, re-read while it runs, with fault modes for
// the error paths of a tool source. Usage:
//
//   node tests/mcp-servers/drift-server.mjs <state.json>
//
// Control interface: write the state file (whole, e.g. write a temp file and rename). The
// server polls it every 20 ms; when its text changes it takes the new state and, unless the
// state says "notify": false, sends `notifications/tools/list_changed`. SIGHUP re-reads the file
// and notifies at once. So changing a tool's description or schema, adding, removing or
// renaming a tool is: write the new list. State (every field optional):
//
//   {
//     "startup": "ok" | "exit" | "silent",  // "exit": exits with status 3 before initializing;
//                                           // "silent": never answers initialize
//     "notify": true,                       // false: change the list without list_changed
//     "list": "ok" | "malformed" | "cursor-loop", // "malformed": tools/list answers a tool without
//                                           // inputSchema; "cursor-loop": every page says nextCursor "again"
//     "pageSize": 2,                        // tools/list answers pages of this many tools (cursor = offset)
//     "tools": [{
//       "name": "lookup", "title": "…", "description": "…",
//       "inputSchema": { "type": "object" },           // default { "type": "object" }
//       "outputSchema": { … },                          // optional
//       "annotations": { "readOnlyHint": true, … },     // optional
//       "result": { "content": [ … ], … },              // optional: the exact CallToolResult to answer
//       "fault": "die" | "hang" | "malformed" | "unknown-id" | "garbage" | "error"
//     }]
//   }
//
// A call without "result" or "fault" answers text `<name> <arguments as JSON>` (and, when the
// tool has an outputSchema, structuredContent `{ "arguments": <arguments> }`). Faults: "die"
// exits (status 1) mid-call; "hang" never answers; "malformed" answers `{ "content": "…" }`
// (not a tool result); "unknown-id" answers a request id nobody sent; "garbage" writes a line
// that is not JSON; "error" answers `isError: true` with text `<name> failed`.
//
// Every call is appended to `<state.json>.calls` (one JSON line `{ "name", "arguments" }`)
// before it is answered or fails: the record that the request reached the server.
import { appendFileSync, readFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";

const stateFile = process.argv[2];
if (!stateFile) {
  process.stderr.write("usage: drift-server.mjs <state.json>\n");
  process.exit(2);
}

let text = readFileSync(stateFile, "utf8");
let state = JSON.parse(text);

if (state.startup === "exit") process.exit(3);
if (state.startup === "silent") {
  // Reads stdin and never answers: a server that starts but does not initialize.
  process.stdin.resume();
  setInterval(() => {}, 1 << 30);
} else {
  await serve();
}

/** Writes one raw line to stdout, the way the stdio transport frames messages. */
function raw(line) {
  process.stdout.write(`${line}\n`);
}

const never = () => new Promise(() => {});

async function serve() {
  const server = new Server({ name: "yoke-drift-server", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });

  server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    if (state.list === "malformed") {
      raw(JSON.stringify({ jsonrpc: "2.0", id: extra.requestId, result: { tools: [{ name: "no-schema" }] } }));
      return never();
    }
    const all = state.tools ?? [];
    // Pages of `pageSize` tools, the cursor being the offset; "cursor-loop" always answers the same cursor.
    const offset = Number(request.params?.cursor ?? 0);
    const size = state.pageSize ?? all.length;
    const page = state.list === "cursor-loop" ? all : all.slice(offset, offset + size);
    const nextCursor = state.list === "cursor-loop" ? "again" : offset + size < all.length ? String(offset + size) : undefined;
    return {
      ...(nextCursor === undefined ? {} : { nextCursor }),
      tools: page.map((tool) => ({
        name: tool.name,
        ...(tool.title === undefined ? {} : { title: tool.title }),
        ...(tool.description === undefined ? {} : { description: tool.description }),
        inputSchema: tool.inputSchema ?? { type: "object" },
        ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
        ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
      })),
    };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args = {} } = request.params;
    const tool = (state.tools ?? []).find((candidate) => candidate.name === name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    appendFileSync(`${stateFile}.calls`, `${JSON.stringify({ name, arguments: args })}\n`);
    switch (tool.fault) {
      case "die":
        process.exit(1);
        break;
      case "hang":
        return never();
      case "malformed":
        raw(JSON.stringify({ jsonrpc: "2.0", id: extra.requestId, result: { content: "this is not a list of content parts" } }));
        return never();
      case "unknown-id":
        raw(JSON.stringify({ jsonrpc: "2.0", id: Number(extra.requestId) + 100_000, result: { content: [{ type: "text", text: "for nobody" }] } }));
        return never();
      case "garbage":
        raw("this line is not JSON");
        return never();
      case "error":
        return { content: [{ type: "text", text: `${name} failed` }], isError: true };
      default:
        break;
    }
    if (tool.result !== undefined) return tool.result;
    return {
      content: [{ type: "text", text: `${name} ${JSON.stringify(args)}` }],
      ...(tool.outputSchema === undefined ? {} : { structuredContent: { arguments: args } }),
    };
  });

  const reload = (force) => {
    let next;
    try {
      next = readFileSync(stateFile, "utf8");
    } catch {
      return; // mid-rename: the next poll sees the file
    }
    if (next === text && !force) return;
    let parsed;
    try {
      parsed = JSON.parse(next);
    } catch {
      return; // half-written: the next poll sees the whole file
    }
    text = next;
    state = parsed;
    if (state.notify !== false || force) void server.sendToolListChanged().catch(() => {});
  };
  setInterval(() => reload(false), 20).unref();
  process.on("SIGHUP", () => reload(true));

  const transport = new StdioServerTransport();
  transport.onclose = () => process.exit(0);
  await server.connect(transport);
  process.stdin.on("end", () => process.exit(0));
}
