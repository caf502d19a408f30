import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod3";
import { canonicalJson } from "./canonical-json.js";
import { defineTool } from "./define-tool.js";
import { YokeError } from "./errors.js";
import { describeIssues, jsonSchema, jsonSchemaOf, validateWithSchema } from "./schema-adapter.js";

const DRAFT = "https://json-schema.org/draft/2020-12/schema";

function configError(make: () => unknown): YokeError {
  try {
    make();
  } catch (error) {
    if (YokeError.hasCode(error, "CONFIG_INVALID")) return error;
    throw error;
  }
  throw new Error("expected CONFIG_INVALID");
}

describe("jsonSchemaOf: the JSON Schema the model is shown", () => {
  it("zod 4: exactly z.toJSONSchema's input side (the bytes journaled before Standard Schema support)", () => {
    const schema = z.object({ path: z.string().min(1), limit: z.number().default(10) });
    expect(jsonSchemaOf(schema, "t")).toEqual(z.toJSONSchema(schema, { io: "input" }));
  });

  it("zod 3: its common types, with keys in a fixed order", () => {
    const schema = z3
      .object({
        city: z3.string().min(1).max(80).describe("the city"),
        days: z3.number().int().min(1).max(14).default(3),
        unit: z3.enum(["c", "f"]).optional(),
        tags: z3.array(z3.string().email()).max(3),
        note: z3.string().nullable(),
        kind: z3.union([z3.literal("a"), z3.literal(2)]),
        extra: z3.record(z3.boolean()),
        checked: z3.string().refine((text) => text !== "x"),
      })
      .strict();
    const json = jsonSchemaOf(schema, "t");
    expect(json).toEqual({
      $schema: DRAFT,
      type: "object",
      properties: {
        city: { type: "string", minLength: 1, maxLength: 80, description: "the city" },
        days: { type: "integer", minimum: 1, maximum: 14, default: 3 },
        unit: { type: "string", enum: ["c", "f"] },
        tags: { type: "array", items: { type: "string", format: "email" }, maxItems: 3 },
        note: { anyOf: [{ type: "string" }, { type: "null" }] },
        kind: { anyOf: [{ const: "a" }, { const: 2 }] },
        extra: { type: "object", additionalProperties: { type: "boolean" } },
        checked: { type: "string" },
      },
      required: ["city", "tags", "note", "kind", "extra", "checked"],
      additionalProperties: false,
    });
    expect(canonicalJson(jsonSchemaOf(schema, "t"))).toBe(canonicalJson(json));
    expect(JSON.stringify(jsonSchemaOf(schema, "t"))).toBe(JSON.stringify(json));
  });

  it("zod 3: a type JSON Schema cannot express is CONFIG_INVALID naming it and where it is", () => {
    const error = configError(() => jsonSchemaOf(z3.object({ at: z3.object({ when: z3.date() }) }), "tool t: input"));
    expect(error.message).toMatch(
      /^tool t: input: the zod schema has no JSON Schema form: ZodDate at at\.when has no JSON Schema form; give it one with jsonSchema/,
    );
  });

  it("Standard JSON Schema: arktype and valibot's toStandardJsonSchema, draft 2020-12", () => {
    expect(jsonSchemaOf(type({ city: "string", "days?": "number" }), "t")).toEqual({
      $schema: DRAFT,
      type: "object",
      properties: { city: { type: "string" }, days: { type: "number" } },
      required: ["city"],
    });
    expect(jsonSchemaOf(toStandardJsonSchema(v.object({ city: v.string() })), "t")).toMatchObject({
      $schema: DRAFT,
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    });
  });

  it("a Standard Schema with no JSON Schema form, or no schema at all, is CONFIG_INVALID", () => {
    expect(configError(() => jsonSchemaOf(v.object({ city: v.string() }), "t")).message).toMatch(/toStandardJsonSchema from @valibot\/to-json-schema/);
    expect(configError(() => jsonSchemaOf({ type: "object" }, "t")).message).toMatch(/not a Standard Schema/);
    expect(configError(() => jsonSchemaOf(z.object({ when: z.date() }), "t")).details).toEqual({ label: "t", vendor: "zod" });
  });
});

describe("jsonSchema(json, { validate })", () => {
  const json = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };

  it("shows the model the JSON Schema exactly and validates with a Standard Schema", async () => {
    const schema = jsonSchema(json, { validate: z3.object({ n: z3.number() }) });
    expect(jsonSchemaOf(schema, "t")).toEqual(json);
    expect(await validateWithSchema(schema, { n: 1 })).toEqual({ ok: true, value: { n: 1 } });
    const failed = await validateWithSchema(schema, { n: "1" });
    expect(failed.ok === false && describeIssues(failed.issues)).toBe("- n: Expected number, received string");
  });

  it("validates with a function returning { success, value | error }, maybe asynchronously", async () => {
    const schema = jsonSchema<{ n: number }>(json, {
      validate: async (value) => ((value as { n: unknown }).n === 1 ? { success: true, value: { n: 1 } } : { success: false, error: new Error("n must be 1") }),
    });
    expect(await validateWithSchema(schema, { n: 1 })).toEqual({ ok: true, value: { n: 1 } });
    expect(await validateWithSchema(schema, { n: 2 })).toEqual({ ok: false, issues: [{ message: "n must be 1" }] });
  });

  it("without a validator, accepts the value as it is; a non-JSON schema is CONFIG_INVALID", async () => {
    expect(await validateWithSchema(jsonSchema(json), { n: "anything" })).toEqual({ ok: true, value: { n: "anything" } });
    expect(configError(() => jsonSchema({ type: "object", default: new Date(0) })).message).toMatch(/plain JSON object/);
  });
});

describe("defineTool from @yoke/protocol (no runtime needed)", () => {
  it("accepts zod 3, valibot, arktype and zod 4, and validates with each one's own validator", async () => {
    const base = { description: "d", sideEffect: "none" as const, execute: async () => "ok" };
    const tools = [
      defineTool({ ...base, name: "z3", input: z3.object({ n: z3.number() }) }),
      defineTool({ ...base, name: "valibot", input: toStandardJsonSchema(v.object({ n: v.number() })) }),
      defineTool({ ...base, name: "arktype", input: type({ n: "number" }) }),
      defineTool({ ...base, name: "z4", input: z.object({ n: z.number() }) }),
    ];
    for (const tool of tools) {
      expect(tool.spec.inputSchema).toMatchObject({ type: "object", properties: { n: { type: "number" } }, required: ["n"] });
      expect(await validateWithSchema(tool.input, { n: 1 })).toEqual({ ok: true, value: { n: 1 } });
      expect((await validateWithSchema(tool.input, { n: "x" })).ok).toBe(false);
    }
  });

  it("rejects an output that is not a schema", () => {
    expect(
      configError(() => defineTool({ name: "t", description: "d", input: z.object({}), output: {} as never, sideEffect: "none", execute: async () => "ok" }))
        .message,
    ).toMatch(/output must be a Standard Schema/);
  });
});
