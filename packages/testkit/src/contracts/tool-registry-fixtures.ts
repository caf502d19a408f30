import { defineTool, type SideEffectClass, type SourceToolDefinition, type ToolCallContext, type ToolDeclarationV1, type ToolOrigin } from "@yoke/protocol";
import { z } from "zod/v4";

/** A local tool of the registry contract: `variant` changes its description only. */
export function contractTool(
  name: string,
  options: { variant?: number; sideEffect?: SideEffectClass; owner?: string; timeoutMs?: number } = {},
): ToolDeclarationV1 {
  return defineTool({
    name,
    description: `${name}, version ${options.variant ?? 0}.`,
    input: z.object({ path: z.string() }),
    sideEffect: options.sideEffect ?? "none",
    ...(options.owner === undefined ? {} : { owner: options.owner }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    execute: async ({ path }) => `${name} ${path}`,
  }) as ToolDeclarationV1;
}

/** A remote tool of the registry contract as its source lists it: `variant` changes its description only (not its name). */
export function contractListing(name: string, variant = 0, extra: Partial<SourceToolDefinition> = {}): SourceToolDefinition {
  return {
    name,
    description: `remote tool, version ${variant}.`,
    inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"], additionalProperties: false },
    ...extra,
  };
}

export const CONTRACT_ORIGIN: ToolOrigin = { kind: "mcp-stdio", command: "contract-server", args: ["--stdio"], env: ["CONTRACT_TOKEN"] };

export function contractCallContext(): ToolCallContext {
  return {
    actionId: "action_contract" as ToolCallContext["actionId"],
    idempotencyKey: "action_contract",
    attemptId: "attempt_contract" as ToolCallContext["attemptId"],
    attempt: 1,
    signal: new AbortController().signal,
  };
}
