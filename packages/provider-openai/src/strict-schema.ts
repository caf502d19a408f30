import type { JsonValue } from "@yoke/protocol";

/** A place where a JSON schema leaves OpenAI's strict structured-output subset. */
export interface StrictSchemaViolation {
  /** JSON pointer to the offending schema node, `""` for the root. */
  readonly path: string;
  readonly message: string;
}

const ALLOWED_KEYWORDS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "$ref",
  "$defs",
  "definitions",
  "description",
  "title",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);
const TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);
const MAX_DEPTH = 10;
const MAX_PROPERTIES = 5_000;
const MAX_ENUM_VALUES = 1_000;

type Schema = { [key: string]: JsonValue };
const isSchema = (value: JsonValue | undefined): value is Schema => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Checks a JSON schema against the subset OpenAI's strict mode accepts: an object root, every
 * object closed (`additionalProperties: false`) with every property required, and only the
 * supported keywords (no `allOf`, `oneOf`, `not`, `if`, `patternProperties`, …), at most 10
 * levels deep and 5,000 properties. Returns every violation; an empty list means strict mode
 * will take it.
 *
 * @example
 * ```ts
 * strictSchemaViolations({ type: "object", properties: { a: { type: "string" } } });
 * // [{ path: "", message: "an object must set additionalProperties: false" }, …]
 * ```
 */
export function strictSchemaViolations(schema: JsonValue): StrictSchemaViolation[] {
  const violations: StrictSchemaViolation[] = [];
  let properties = 0;
  let enumValues = 0;
  const visit = (node: JsonValue | undefined, path: string, depth: number): void => {
    if (!isSchema(node)) {
      violations.push({ path, message: "a schema must be an object" });
      return;
    }
    if (depth > MAX_DEPTH) {
      violations.push({ path, message: `nesting deeper than ${MAX_DEPTH} levels` });
      return;
    }
    for (const key of Object.keys(node)) {
      if (!ALLOWED_KEYWORDS.has(key)) violations.push({ path, message: `keyword "${key}" is not supported in strict mode` });
    }
    const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
    for (const type of types) {
      if (typeof type !== "string" || !TYPES.has(type)) violations.push({ path, message: `unknown type ${JSON.stringify(type)}` });
    }
    if (node.type === undefined && node.anyOf === undefined && node.$ref === undefined && node.enum === undefined && node.const === undefined) {
      violations.push({ path, message: "a schema must declare a type, anyOf, enum, const or $ref" });
    }
    if (Array.isArray(node.enum)) enumValues += node.enum.length;
    if (types.includes("object") || node.properties !== undefined) {
      if (node.additionalProperties !== false) violations.push({ path, message: "an object must set additionalProperties: false" });
      const props = isSchema(node.properties) ? node.properties : {};
      const required = Array.isArray(node.required) ? node.required : [];
      for (const [name, child] of Object.entries(props)) {
        properties += 1;
        if (!required.includes(name)) violations.push({ path: `${path}/properties/${name}`, message: `property "${name}" must be listed in required` });
        visit(child, `${path}/properties/${name}`, depth + 1);
      }
    }
    if (node.items !== undefined) visit(node.items, `${path}/items`, depth + 1);
    if (Array.isArray(node.anyOf)) for (const [index, child] of node.anyOf.entries()) visit(child, `${path}/anyOf/${index}`, depth + 1);
    for (const defsKey of ["$defs", "definitions"] as const) {
      const defs = node[defsKey];
      if (isSchema(defs)) for (const [name, child] of Object.entries(defs)) visit(child, `${path}/${defsKey}/${name}`, depth);
    }
  };
  if (!isSchema(schema) || schema.type !== "object") violations.push({ path: "", message: "the root must be an object schema" });
  visit(schema, "", 1);
  if (properties > MAX_PROPERTIES) violations.push({ path: "", message: `more than ${MAX_PROPERTIES} properties in total` });
  if (enumValues > MAX_ENUM_VALUES) violations.push({ path: "", message: `more than ${MAX_ENUM_VALUES} enum values in total` });
  return violations;
}
