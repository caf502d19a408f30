import { YokeError } from "./errors.js";

/**
 * JSON with object keys sorted by code unit and no insignificant whitespace, so equal values
 * give equal bytes whatever the insertion order. `undefined` members are dropped (as JSON
 * does); non-finite numbers, bigints, functions and cycles are rejected.
 *
 * @example
 * ```ts
 * canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 * ```
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set());
}

function write(value: unknown, seen: Set<object>): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw notJson(`non-finite number ${value}`);
      return JSON.stringify(value);
    case "object":
      break;
    default:
      throw notJson(`a ${typeof value}`);
  }
  const object = value as object;
  if (seen.has(object)) throw notJson("a cycle");
  seen.add(object);
  let out: string;
  if (Array.isArray(object)) {
    out = `[${object.map((item) => (item === undefined ? "null" : write(item, seen))).join(",")}]`;
  } else {
    const toJSON = (object as { toJSON?: () => unknown }).toJSON;
    if (typeof toJSON === "function") {
      seen.delete(object);
      return write(toJSON.call(object), seen);
    }
    const record = object as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    out = `{${keys.map((key) => `${JSON.stringify(key)}:${write(record[key], seen)}`).join(",")}}`;
  }
  seen.delete(object);
  return out;
}

function notJson(what: string): YokeError {
  return new YokeError("EVENT_INVALID", `value is not canonical JSON: contains ${what}`);
}
