import { z } from "zod/v4";

/** JSON values, as stored in the journal. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

const MAX_DEPTH = 256;

/**
 * True when `value` is plain JSON: null, a boolean, a finite number, a string, an array of
 * JSON values, or a plain object of JSON values (no `undefined`, Dates, class instances,
 * cycles, or nesting deeper than 256). Walks the value without copying it.
 */
export function isJsonValue(value: unknown): value is JsonValue {
  return check(value, 0);
}

/** True when `value` is a plain JSON object (the shape of every event's data). */
export function isJsonObject(value: unknown): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value) && check(value, 0);
}

function check(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object": {
      if (value === null) return true;
      if (depth >= MAX_DEPTH) return false;
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index++) if (!check(value[index], depth + 1)) return false;
        return true;
      }
      const prototype = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) return false;
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        if (!check((value as Record<string, unknown>)[key], depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/**
 * zod schema for a JSON value. A hand-written check rather than a recursive union: parsing
 * returns the value itself (no copy) and allocates nothing, which matters because every
 * journaled event's data passes through it.
 */
export const JsonValueSchema: z.ZodType<JsonValue> = z.custom<JsonValue>(isJsonValue, { message: "expected a JSON value" });

/** zod schema for a plain JSON object, returned as is. */
export const JsonObjectSchema: z.ZodType<{ [key: string]: JsonValue }> = z.custom<{ [key: string]: JsonValue }>(isJsonObject, {
  message: "expected a JSON object",
});
