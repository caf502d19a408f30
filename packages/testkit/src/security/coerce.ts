import type { JsonValue } from "@yoke/protocol";
import { parsePythonList } from "./python-literal.js";
import type { JsonObject, ToolParameter } from "./types.js";

/** What `coerceArguments` gives: the coerced arguments, or the error text upstream's validator would report. */
export type Coerced = { readonly ok: true; readonly value: JsonObject } | { readonly ok: false; readonly error: string };

const NUMERIC = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;
const TRUE_TEXT = new Set(["true", "1", "yes", "on", "t", "y"]);
const FALSE_TEXT = new Set(["false", "0", "no", "off", "f", "n"]);

type Outcome = { ok: true; value: JsonValue } | { ok: false; error: string };
type Schema = Pick<ToolParameter, "type" | "items">;

function coerceOne(schema: Schema, value: JsonValue, location: string): Outcome {
  const fail = (expected: string): Outcome => ({ ok: false, error: `${location}: Input should be ${expected}` });
  switch (schema.type) {
    case "string":
      return typeof value === "string" ? { ok: true, value } : fail("a valid string");
    case "number":
      if (typeof value === "number") return { ok: true, value };
      if (typeof value === "string" && NUMERIC.test(value)) return { ok: true, value: Number(value) };
      return fail("a valid number");
    case "integer": {
      const number = typeof value === "number" ? value : typeof value === "string" && NUMERIC.test(value) ? Number(value) : Number.NaN;
      return Number.isInteger(number) ? { ok: true, value: number } : fail("a valid integer");
    }
    case "boolean":
      if (typeof value === "boolean") return { ok: true, value };
      if (value === 1 || value === 0) return { ok: true, value: value === 1 };
      if (typeof value === "string" && TRUE_TEXT.has(value.trim().toLowerCase())) return { ok: true, value: true };
      if (typeof value === "string" && FALSE_TEXT.has(value.trim().toLowerCase())) return { ok: true, value: false };
      return fail("a valid boolean");
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value) ? { ok: true, value } : fail("a valid dictionary");
    case "array": {
      if (!Array.isArray(value)) return fail("a valid list");
      if (schema.items === undefined) return { ok: true, value };
      const items: JsonValue[] = [];
      const errors: string[] = [];
      value.forEach((item, index) => {
        const coerced = coerceOne(schema.items!, item, `${location}.${index}`);
        if (coerced.ok) items.push(coerced.value);
        else errors.push(coerced.error);
      });
      return errors.length === 0 ? { ok: true, value: items } : { ok: false, error: errors.join("; ") };
    }
  }
}

/** A string that parses as a Python list literal, as that list; any other value unchanged. */
function listLiteral(value: JsonValue): JsonValue {
  if (typeof value !== "string") return value;
  return parsePythonList(value) ?? value;
}

/**
 * Validates and coerces a call's arguments leniently, as upstream's pydantic lax mode does:
 * an integer for a number, numeric strings as numbers, `"true"`/`1` as true, a list's
 * elements each by its `items` type, an object as it is; arguments not in the list are
 * dropped; a missing optional parameter is its default (`null` unless given). As upstream's
 * executor does before validating, any string argument that parses as a Python list literal
 * (`"['a@b.com']"`) becomes that list, whatever the parameter's type.
 *
 * @example
 * ```ts
 * coerceArguments([{ name: "amount", type: "number", required: true, description: "" }], { amount: "98.7", extra: 1 });
 * // { ok: true, value: { amount: 98.7 } }
 * ```
 */
export function coerceArguments(parameters: readonly ToolParameter[], raw: unknown): Coerced {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return { ok: false, error: "arguments: Input should be an object" };
  const input = raw as JsonObject;
  const value: JsonObject = {};
  const errors: string[] = [];
  for (const parameter of parameters) {
    const given = input[parameter.name];
    if (given === undefined || (given === null && parameter.nullable === true)) {
      if (parameter.required) errors.push(`${parameter.name}: Field required`);
      else value[parameter.name] = parameter.default ?? null;
      continue;
    }
    const coerced = coerceOne(parameter, listLiteral(given), parameter.name);
    if (coerced.ok) value[parameter.name] = coerced.value;
    else errors.push(coerced.error);
  }
  return errors.length === 0 ? { ok: true, value } : { ok: false, error: `${errors.length} validation error(s): ${errors.join("; ")}` };
}

/** The JSON Schema the model is shown for a parameter list (descriptions verbatim from the data set). */
export function parametersSchema(parameters: readonly ToolParameter[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const parameter of parameters) {
    const type = parameter.nullable === true ? [parameter.type, "null"] : parameter.type;
    properties[parameter.name] = {
      type,
      ...(parameter.items === undefined ? {} : { items: parameter.items }),
      description: parameter.description,
      ...(parameter.default === undefined ? {} : { default: parameter.default }),
    };
  }
  return { type: "object", properties, required: parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name) };
}
