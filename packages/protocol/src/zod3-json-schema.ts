import { isJsonValue, type JsonValue } from "./json-value.js";

type JsonObject = { [key: string]: JsonValue };

/** A zod 3 schema as this converter reads it: its `_def`, which zod 3 keeps public. */
interface Zod3Like {
  readonly _def: Zod3Def;
  isOptional?: () => boolean;
}

interface Zod3Def {
  readonly typeName?: string;
  readonly description?: string;
  readonly [key: string]: unknown;
}

/** Thrown (and turned into CONFIG_INVALID by the caller) for a zod 3 type JSON Schema cannot express. */
export class Zod3Unsupported extends Error {
  constructor(
    readonly typeName: string,
    readonly path: string,
  ) {
    super(`${typeName} at ${path} has no JSON Schema form`);
  }
}

/** True for a zod 3 schema: zod's Standard Schema vendor, without zod 4's `_zod` internals. */
export function isZod3Schema(schema: object): schema is Zod3Like {
  const standard = (schema as { "~standard"?: { vendor?: unknown } })["~standard"];
  return standard?.vendor === "zod" && !("_zod" in schema) && typeof (schema as { _def?: unknown })._def === "object";
}

/**
 * The JSON Schema (draft 2020-12) of the input a zod 3 schema accepts, for the common types:
 * objects, strings, numbers, booleans, null, arrays, enums, literals, unions, records,
 * optional, nullable, default and refinements (their JSON Schema is their base type's: the
 * schema's own validator still runs). Keys come in a fixed order, so one schema always gives
 * the same bytes. Anything else throws `Zod3Unsupported`.
 */
export function zod3ToJsonSchema(schema: Zod3Like): JsonObject {
  return { $schema: "https://json-schema.org/draft/2020-12/schema", ...convert(schema, "(root)") };
}

function convert(schema: Zod3Like, path: string): JsonObject {
  const def = schema._def;
  const body = convertType(def, path);
  return def.description === undefined ? body : { ...body, description: def.description };
}

function convertType(def: Zod3Def, path: string): JsonObject {
  switch (def.typeName) {
    case "ZodString":
      return withChecks({ type: "string" }, def.checks, stringCheck);
    case "ZodNumber": {
      const checks = (def.checks as readonly { kind: string }[] | undefined) ?? [];
      return withChecks({ type: checks.some((check) => check.kind === "int") ? "integer" : "number" }, checks, numberCheck);
    }
    case "ZodBoolean":
      return { type: "boolean" };
    case "ZodNull":
      return { type: "null" };
    case "ZodAny":
    case "ZodUnknown":
      return {};
    case "ZodLiteral": {
      const value = def.value;
      if (value === null || ["string", "number", "boolean"].includes(typeof value)) return { const: value as JsonValue };
      throw new Zod3Unsupported("ZodLiteral", path);
    }
    case "ZodEnum":
      return { type: "string", enum: [...(def.values as string[])] };
    case "ZodArray": {
      const out: JsonObject = { type: "array", items: convert(def.type as Zod3Like, `${path}[]`) };
      const min = def.minLength as { value: number } | null | undefined;
      const max = def.maxLength as { value: number } | null | undefined;
      const exact = def.exactLength as { value: number } | null | undefined;
      if (exact) return { ...out, minItems: exact.value, maxItems: exact.value };
      if (min) out.minItems = min.value;
      if (max) out.maxItems = max.value;
      return out;
    }
    case "ZodObject":
      return convertObject(def, path);
    case "ZodRecord":
      return { type: "object", additionalProperties: convert(def.valueType as Zod3Like, `${path}{}`) };
    case "ZodUnion":
    case "ZodDiscriminatedUnion": {
      const options = def.options as readonly Zod3Like[] | ReadonlyMap<unknown, Zod3Like>;
      const list = Array.isArray(options) ? options : [...(options as ReadonlyMap<unknown, Zod3Like>).values()];
      return { anyOf: list.map((option, index) => convert(option, `${path}|${index}`)) };
    }
    case "ZodOptional":
      return convert(def.innerType as Zod3Like, path);
    case "ZodNullable":
      return { anyOf: [convert(def.innerType as Zod3Like, path), { type: "null" }] };
    case "ZodDefault": {
      const inner = convert(def.innerType as Zod3Like, path);
      const value = (def.defaultValue as () => unknown)();
      return isJsonValue(value) ? { ...inner, default: value } : inner;
    }
    case "ZodEffects":
      return convert(def.schema as Zod3Like, path);
    case "ZodBranded":
    case "ZodReadonly":
    case "ZodCatch":
      return convert((def.type ?? def.innerType) as Zod3Like, path);
    default:
      throw new Zod3Unsupported(def.typeName ?? "an unknown zod 3 type", path);
  }
}

function convertObject(def: Zod3Def, path: string): JsonObject {
  const shape = (def.shape as () => Record<string, Zod3Like>)();
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const key of Object.keys(shape)) {
    const property = shape[key]!;
    properties[key] = convert(property, path === "(root)" ? key : `${path}.${key}`);
    if (!(property.isOptional?.() ?? false)) required.push(key);
  }
  const out: JsonObject = { type: "object", properties };
  if (required.length > 0) out.required = required;
  if (def.unknownKeys === "strict") out.additionalProperties = false;
  return out;
}

function withChecks(base: JsonObject, checks: unknown, map: (check: Check, out: JsonObject) => void): JsonObject {
  for (const check of (checks as readonly Check[] | undefined) ?? []) map(check, base);
  return base;
}

interface Check {
  readonly kind: string;
  readonly value?: number;
  readonly inclusive?: boolean;
  readonly regex?: RegExp;
}

function stringCheck(check: Check, out: JsonObject): void {
  switch (check.kind) {
    case "min":
      out.minLength = check.value!;
      break;
    case "max":
      out.maxLength = check.value!;
      break;
    case "length":
      out.minLength = check.value!;
      out.maxLength = check.value!;
      break;
    case "email":
      out.format = "email";
      break;
    case "url":
      out.format = "uri";
      break;
    case "uuid":
      out.format = "uuid";
      break;
    case "datetime":
      out.format = "date-time";
      break;
    case "regex":
      out.pattern = check.regex!.source;
      break;
    // Other checks stay the validator's business: the JSON Schema is only looser.
  }
}

function numberCheck(check: Check, out: JsonObject): void {
  switch (check.kind) {
    case "min":
      out[check.inclusive === false ? "exclusiveMinimum" : "minimum"] = check.value!;
      break;
    case "max":
      out[check.inclusive === false ? "exclusiveMaximum" : "maximum"] = check.value!;
      break;
    case "multipleOf":
      out.multipleOf = check.value!;
      break;
  }
}
