// Type tests, checked by the package's `tsc` (`pnpm typecheck`), not run by vitest: a tool's
// handler input is inferred from its schema, whatever library declared it.
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { expectTypeOf } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod3";
import { defineTool, type AnyTool, type Tool } from "./define-tool.js";
import { jsonSchema, type InferSchemaOutput } from "./schema-adapter.js";

const base = { description: "d", sideEffect: "none" as const };

// zod 4: the schema's output (defaults applied) is what the handler receives.
defineTool({
  ...base,
  name: "z4",
  input: z.object({ city: z.string(), days: z.number().default(3) }),
  execute: async (input) => {
    expectTypeOf(input).toEqualTypeOf<{ city: string; days: number }>();
    return "ok";
  },
});

// zod 3.
defineTool({
  ...base,
  name: "z3",
  input: z3.object({ city: z3.string(), days: z3.number().optional() }),
  execute: async (input) => {
    expectTypeOf(input).toEqualTypeOf<{ city: string; days?: number | undefined }>();
    return "ok";
  },
});

// valibot through Standard JSON Schema.
defineTool({
  ...base,
  name: "valibot",
  input: toStandardJsonSchema(v.object({ city: v.string(), days: v.number() })),
  access: (input) => {
    expectTypeOf(input).toEqualTypeOf<{ city: string; days: number }>();
    return { reads: [input.city], writes: [] };
  },
  execute: async (input) => {
    expectTypeOf(input).toEqualTypeOf<{ city: string; days: number }>();
    return "ok";
  },
});

// arktype.
defineTool({
  ...base,
  name: "arktype",
  input: type({ city: "string", "days?": "number" }),
  execute: async (input) => {
    expectTypeOf(input.city).toEqualTypeOf<string>();
    expectTypeOf(input.days).toEqualTypeOf<number | undefined>();
    return "ok";
  },
});

// A plain JSON Schema: typed by its validator, or by the type argument.
const byValidator = jsonSchema({ type: "object" }, { validate: z3.object({ n: z3.number() }) });
expectTypeOf<InferSchemaOutput<typeof byValidator>>().toEqualTypeOf<{ n: number }>();
const byArgument = jsonSchema<{ n: number }>({ type: "object" }, { validate: (value) => ({ success: true, value: value as { n: number } }) });
expectTypeOf<InferSchemaOutput<typeof byArgument>>().toEqualTypeOf<{ n: number }>();

// A tool of any library is an AnyTool, and keeps its input type as a Tool.
const tool = defineTool({ ...base, name: "t", input: type({ n: "number" }), execute: async ({ n }) => String(n) });
expectTypeOf(tool).toExtend<AnyTool>();
expectTypeOf(tool).toExtend<Tool<typeof tool.input>>();

// Not a schema: a type error.
// @ts-expect-error a plain object is not a Standard Schema
defineTool({ ...base, name: "bad", input: { type: "object" }, execute: async () => "ok" });
