// Shared by the tests and the child process: the drift server's state file, and a registry
// holding a local `echo` tool and the drift server's tools (over stdio, through @yoke/mcp).
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { mcpStdioSource } from "@yoke/mcp";
import type { ReadmissionRule } from "@yoke/protocol";
import { defineTool } from "@yoke/runtime";
import { createToolRegistry, type ToolRegistry } from "@yoke/tool-registry";
import { z } from "zod";

export const driftServer = fileURLToPath(new URL("../../mcp-servers/drift-server.mjs", import.meta.url));

/** A drift server tool as its state file lists it. */
export interface ServerTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema?: Record<string, unknown>;
}

export const LOOKUP: ServerTool = {
  name: "lookup",
  description: "Look a word up.",
  inputSchema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
};

/** Writes the server's whole state at once (a temp file renamed over it), as its control interface asks. */
export function writeState(file: string, tools: readonly ServerTool[]): void {
  writeFileSync(`${file}.next`, JSON.stringify({ tools }));
  renameSync(`${file}.next`, file);
}

export const echo = defineTool({
  name: "echo",
  description: "Repeat the text.",
  input: z.object({ text: z.string() }),
  sideEffect: "none",
  execute: async ({ text }) => `echo: ${text}`,
});

/** A registry of `echo` and the drift server reading `stateFile` (its `lookup` declared idempotent). */
export async function driftRegistry(stateFile: string, readmission: readonly ReadmissionRule[] = []): Promise<ToolRegistry> {
  const registry = createToolRegistry({ tools: [echo], readmission });
  const source = mcpStdioSource({ command: process.execPath, args: [driftServer, stateFile], stderr: "ignore" });
  await registry.addSource(source, { trustDomain: "third-party", tools: { lookup: { sideEffect: "idempotent" } } });
  return registry;
}

/** What reached the server: one entry per call it received (its `<state>.calls` log), across every process. */
export function serverCalls(state: string): unknown[] {
  const file = `${state}.calls`;
  return existsSync(file)
    ? readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as unknown)
    : [];
}
