import { defineTool, type SourceToolDefinition, type ToolCallContext, type ToolDefinition } from "@yoke/protocol";
import { z } from "zod";

const input = z.object({ path: z.string() });

/** A local read tool; `overrides` change one field of its definition. */
export function readTool(overrides: Partial<ToolDefinition<typeof input>> = {}) {
  return defineTool({
    name: "read",
    description: "Read a file.",
    input,
    sideEffect: "none",
    execute: async ({ path }) => `contents of ${path}`,
    ...overrides,
  });
}

export function writeTool(overrides: Partial<ToolDefinition<z.ZodObject<{ path: z.ZodString; text: z.ZodString }>>> = {}) {
  return defineTool({
    name: "write",
    description: "Write a file.",
    input: z.object({ path: z.string(), text: z.string() }),
    sideEffect: "idempotent",
    owner: "files-team",
    execute: async ({ path }) => `wrote ${path}`,
    ...overrides,
  });
}

/** A remote tool as a source lists it. */
export function listed(name: string, description = `${name} things.`, extra: Partial<SourceToolDefinition> = {}): SourceToolDefinition {
  return {
    name,
    description,
    inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"], additionalProperties: false },
    ...extra,
  };
}

/** A call context for tests that call a declaration directly. */
export function callContext(): ToolCallContext {
  return {
    actionId: "action_1" as ToolCallContext["actionId"],
    idempotencyKey: "action_1",
    attemptId: "attempt_1" as ToolCallContext["attemptId"],
    attempt: 1,
    signal: new AbortController().signal,
  };
}
