import type { JsonValue } from "@yoke/protocol";

/** Fields upstream types as `float`: rendered as Python renders a float (`1810.0`, `98.7`). */
const FLOAT_FIELDS = new Set(["amount", "balance"]);

/** A number as Python's `str(float)` writes it. */
export function pythonFloat(value: number): string {
  return Number.isInteger(value) ? `${value}.0` : String(value);
}

function scalar(value: JsonValue, key: string | undefined): string {
  if (value === null) return "None";
  if (typeof value === "number") return key !== undefined && FLOAT_FIELDS.has(key) ? pythonFloat(value) : String(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  return String(value);
}

/**
 * A tool's return value as text for the model, in upstream's spirit: lists and records as
 * YAML-like mappings, `null` as `None`, floats in Python form. Strings are written raw, never
 * quoted or escaped, so injected text reaches the model exactly as it was placed.
 *
 * @example
 * ```ts
 * renderOutput([{ id: 1, amount: 100, subject: "Pizza party" }]);
 * // "- id: 1\n  amount: 100.0\n  subject: Pizza party"
 * ```
 */
export function renderOutput(value: JsonValue, key?: string): string {
  return lines(value, key, "").join("\n");
}

/** Structural lines get `indent`; a string's own line breaks are kept as they are (never indented). */
function lines(value: JsonValue, key: string | undefined, indent: string): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${indent}[]`];
    return value.flatMap((item) => {
      const [first = "", ...rest] = lines(item, key, `${indent}  `);
      return [`${indent}- ${first.slice(indent.length + 2)}`, ...rest];
    });
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    if (entries.length === 0) return [`${indent}{}`];
    return entries.flatMap(([name, item]) => {
      const nested = item !== null && typeof item === "object" && (Array.isArray(item) ? item.length > 0 : Object.keys(item).length > 0);
      return nested ? [`${indent}${name}:`, ...lines(item as JsonValue, name, `${indent}  `)] : [`${indent}${name}: ${scalar(item as JsonValue, name)}`];
    });
  }
  return [`${indent}${scalar(value, key)}`];
}

/** A `{"message": …}` result as Python's `str()` of the dict renders it. */
export function pythonMessage(message: string): string {
  return `{'message': '${message}'}`;
}
