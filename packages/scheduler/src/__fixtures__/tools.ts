// Declarations for the scheduler's tests.
import { ToolSpecSchema, type AnyToolDeclaration } from "@yoke/protocol";
import { z } from "zod";

export function declaration(overrides: Partial<AnyToolDeclaration> & { name: string }): AnyToolDeclaration {
  return {
    specificationVersion: "v1",
    spec: ToolSpecSchema.parse({ name: overrides.name, description: overrides.name, inputSchema: { type: "object" } }),
    input: z.any(),
    sideEffect: "none",
    timeoutMs: 1_000,
    execute: async () => "ok",
    ...overrides,
  };
}
