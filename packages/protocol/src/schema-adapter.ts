import { z } from "zod/v4";
import { YokeError } from "./errors.js";
import { isJsonObject, type JsonValue } from "./json-value.js";
import type { StandardJSONSchemaV1, StandardSchemaV1 } from "./standard-schema.js";
import { Zod3Unsupported, isZod3Schema, zod3ToJsonSchema } from "./zod3-json-schema.js";

type JsonObject = { [key: string]: JsonValue };

/**
 * What a tool's input (or a run's structured output) may be declared with: any Standard
 * Schema — zod 4, zod 3, valibot, arktype, … — or `jsonSchema(json, { validate })`.
 */
// biome-ignore lint/suspicious/noExplicitAny: any schema, whatever its input and output types; `unknown` would make inferred outputs unknown
export type SchemaLike<Output = any> = StandardSchemaV1<any, Output>;

/** The value a schema's validator gives back (zod: after defaults and transforms). */
export type InferSchemaOutput<Schema extends StandardSchemaV1> = StandardSchemaV1.InferOutput<Schema>;

/** What a hand-written validator returns (the AI SDK's shape). */
export type JsonSchemaValidation<T> = { success: true; value: T } | { success: false; error: Error };

/** A plain JSON Schema with its validator, as `jsonSchema()` makes it: a Standard Schema (vendor `yoke`) and a Standard JSON Schema. */
export interface JsonSchemaDefinition<Input = unknown, Output = Input> extends StandardSchemaV1<Input, Output> {
  readonly "~standard": StandardSchemaV1.Props<Input, Output> & StandardJSONSchemaV1.Props<Input, Output>;
}

/** Issues of a failed validation, each with the path it names. */
export type SchemaValidationResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issues: readonly StandardSchemaV1.Issue[] };

/**
 * A schema from a plain JSON Schema object and a validator: what the model is shown is
 * `schema` exactly; what is accepted is what `validate` accepts. `validate` is a Standard
 * Schema (then its output type is the value's type) or a function returning
 * `{ success, value } | { success: false, error }`. Without `validate`, any JSON value the
 * model sends is accepted as it is.
 *
 * @example
 * ```ts
 * // zod 3 with a JSON Schema of your own making (zod 3's common types also work directly):
 * const input = jsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }, { validate: z3.object({ city: z3.string() }) });
 * const weather = defineTool({ name: "weather", description: "Weather of a city.", input, sideEffect: "none", execute: async ({ city }) => `sunny in ${city}` });
 * ```
 */
export function jsonSchema<Schema extends StandardSchemaV1>(
  schema: Record<string, unknown>,
  options: { validate: Schema },
): JsonSchemaDefinition<StandardSchemaV1.InferInput<Schema>, StandardSchemaV1.InferOutput<Schema>>;
export function jsonSchema<T = unknown>(
  schema: Record<string, unknown>,
  options?: { validate?: (value: unknown) => JsonSchemaValidation<T> | Promise<JsonSchemaValidation<T>> },
): JsonSchemaDefinition<T>;
export function jsonSchema(
  schema: Record<string, unknown>,
  options: { validate?: StandardSchemaV1 | ((value: unknown) => JsonSchemaValidation<unknown> | Promise<JsonSchemaValidation<unknown>>) } = {},
): JsonSchemaDefinition<unknown> {
  if (!isJsonObject(schema)) {
    throw new YokeError("CONFIG_INVALID", "jsonSchema: the schema must be a plain JSON object");
  }
  const validator = options.validate;
  const json = (): Record<string, unknown> => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  const validate = async (value: unknown): Promise<StandardSchemaV1.Result<unknown>> => {
    if (validator === undefined) return { value };
    if (typeof validator === "function") {
      const result = await validator(value);
      return result.success ? { value: result.value } : { issues: [{ message: result.error.message }] };
    }
    return validator["~standard"].validate(value);
  };
  return { "~standard": { version: 1, vendor: "yoke", validate, jsonSchema: { input: json, output: json } } };
}

/**
 * The JSON Schema of what `schema` accepts, as the model is shown it: zod 4 through
 * `z.toJSONSchema` (input side: defaults are optional to the model), zod 3 through Yoke's
 * converter for its common types, any other library through Standard JSON Schema
 * (`~standard.jsonSchema.input`, draft 2020-12). Deterministic: one schema, one set of bytes.
 * Throws CONFIG_INVALID, naming `label`, when the schema is not a Standard Schema or has no
 * JSON Schema form (wrap it: `jsonSchema(json, { validate: schema })`).
 *
 * @example
 * ```ts
 * jsonSchemaOf(z.object({ city: z.string() }), "tool weather");
 * // { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false }
 * ```
 */
export function jsonSchemaOf(schema: unknown, label: string): JsonObject {
  // arktype's schemas are functions.
  if (
    (typeof schema !== "object" && typeof schema !== "function") ||
    schema === null ||
    typeof (schema as Partial<StandardSchemaV1>)["~standard"]?.validate !== "function"
  ) {
    throw new YokeError(
      "CONFIG_INVALID",
      `${label}: the schema is not a Standard Schema; pass a zod, valibot or arktype schema, or a plain JSON Schema as jsonSchema(json, { validate })`,
      { details: { label } },
    );
  }
  const standard = (schema as StandardSchemaV1)["~standard"] as StandardSchemaV1.Props & Partial<StandardJSONSchemaV1.Props>;
  let produced: unknown;
  try {
    if ("_zod" in schema) produced = z.toJSONSchema(schema as z.ZodType, { io: "input" });
    else if (isZod3Schema(schema)) produced = zod3ToJsonSchema(schema);
    else if (typeof standard.jsonSchema?.input === "function") produced = standard.jsonSchema.input({ target: "draft-2020-12" });
    else {
      throw new YokeError(
        "CONFIG_INVALID",
        `${label}: the ${standard.vendor} schema cannot say what it accepts as JSON Schema, so the model could not be told; give it one with jsonSchema(json, { validate: schema })${standard.vendor === "valibot" ? " or wrap it with toStandardJsonSchema from @valibot/to-json-schema" : ""}`,
        { details: { label, vendor: standard.vendor } },
      );
    }
  } catch (cause) {
    if (YokeError.isInstance(cause)) throw cause;
    const what = cause instanceof Zod3Unsupported ? `: ${cause.message}` : "";
    throw new YokeError(
      "CONFIG_INVALID",
      `${label}: the ${standard.vendor} schema has no JSON Schema form${what}; give it one with jsonSchema(json, { validate: schema })`,
      {
        details: { label, vendor: standard.vendor },
        cause,
      },
    );
  }
  // A JSON round trip drops `undefined` members, which some converters leave.
  const json: unknown = produced === undefined ? undefined : JSON.parse(JSON.stringify(produced));
  if (!isJsonObject(json)) {
    throw new YokeError("CONFIG_INVALID", `${label}: the ${standard.vendor} schema's JSON Schema is not a JSON object`, {
      details: { label, vendor: standard.vendor },
    });
  }
  return json;
}

/**
 * Validates `value` with the schema's own validator (`~standard.validate`, awaited when it is
 * asynchronous). Never throws for invalid input: the issues come back.
 *
 * @example
 * ```ts
 * const result = await validateWithSchema(z.object({ city: z.string() }), { city: 3 });
 * if (!result.ok) describeIssues(result.issues); // "- city: Invalid input: expected string, received number"
 * ```
 */
export async function validateWithSchema<Schema extends StandardSchemaV1>(
  schema: Schema,
  value: unknown,
): Promise<SchemaValidationResult<StandardSchemaV1.InferOutput<Schema>>> {
  const result = await schema["~standard"].validate(value);
  if (result.issues) return { ok: false, issues: result.issues };
  return { ok: true, value: (result as StandardSchemaV1.SuccessResult<StandardSchemaV1.InferOutput<Schema>>).value };
}

/** Issues as lines for the model: `- <path>: <message>`, the path dotted, `(the value)` for the root. */
export function describeIssues(issues: readonly StandardSchemaV1.Issue[], root = "(the value)"): string {
  return issues
    .map((issue) => {
      const path = issue.path ?? [];
      const dotted = path.length === 0 ? root : path.map((segment) => String(typeof segment === "object" ? segment.key : segment)).join(".");
      return `- ${dotted}: ${issue.message}`;
    })
    .join("\n");
}
