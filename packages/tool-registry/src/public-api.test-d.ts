// The public API's types: a registry takes any tool defineTool makes, typed `access` included.
import { defineTool, type ToolRegistryV1, type ToolRevisionV1 } from "@yoke/protocol";
import { expectTypeOf, test } from "vitest";
import { z } from "zod";
import { createToolRegistry, type ToolRegistry } from "./index.js";

const write = defineTool({
  name: "write",
  description: "Write.",
  input: z.object({ path: z.string() }),
  sideEffect: "idempotent",
  access: ({ path }) => ({ reads: [], writes: [`file:${path}`] }),
  execute: async ({ path }) => path,
});

test("createToolRegistry is a ToolRegistryV1 that registers typed tools", () => {
  const registry = createToolRegistry({ tools: [write] });
  expectTypeOf(registry).toExtend<ToolRegistryV1>();
  expectTypeOf(registry.register(write)).toEqualTypeOf<ToolRevisionV1>();
  const v1: ToolRegistryV1 = registry;
  expectTypeOf(v1.register).parameter(0).not.toBeAny();
  expectTypeOf<ToolRegistry["revision"]>().returns.toEqualTypeOf<ToolRevisionV1 | undefined>();
});

test("ToolRegistryV1.register takes a tool whose access reads its typed input", () => {
  const v1: ToolRegistryV1 = createToolRegistry();
  expectTypeOf(v1.register(write)).toEqualTypeOf<ToolRevisionV1>();
});
