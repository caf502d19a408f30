import type { JsonValue } from "@yoke/protocol";

type JsonObject = { [key: string]: JsonValue };

// Keywords Anthropic's strict mode (structured outputs) does not take.
const UNSUPPORTED = [
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "maxItems",
  "minProperties",
  "maxProperties",
];
const SUBSCHEMA_LISTS = ["anyOf", "allOf", "oneOf", "prefixItems"];
const SUBSCHEMA_MAPS = ["properties", "$defs", "definitions"];

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);
const pointer = (path: readonly string[]) => (path.length === 0 ? "the root" : `/${path.join("/")}`);

/**
 * Why a tool's input schema cannot be used with `strict: true` on the Messages API, or
 * undefined when it can. Strict mode takes a subset of JSON Schema: every object must set
 * `additionalProperties: false`; no numeric or length constraints (`minimum`, `maxLength`,
 * …), `minItems` only 0 or 1; local `$ref`s only, and no recursive ones.
 *
 * @example
 * ```ts
 * strictSchemaProblem({ type: "object", properties: { n: { type: "integer", minimum: 0 } }, additionalProperties: false });
 * // "/properties/n: minimum is not supported in strict mode"
 * ```
 */
export function strictSchemaProblem(schema: JsonObject): string | undefined {
  const expanding = new Set<string>();
  const checked = new Set<string>();
  const visit = (node: JsonValue, path: string[]): string | undefined => {
    if (!isObject(node)) return undefined;
    const at = pointer(path);
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if ((types.includes("object") || isObject(node.properties)) && node.additionalProperties !== false) {
      return `${at}: an object must set additionalProperties: false in strict mode`;
    }
    if (node.additionalProperties !== undefined && node.additionalProperties !== false) return `${at}: additionalProperties must be false in strict mode`;
    for (const keyword of UNSUPPORTED) if (keyword in node) return `${at}: ${keyword} is not supported in strict mode`;
    if (node.minItems !== undefined && node.minItems !== 0 && node.minItems !== 1) return `${at}: minItems must be 0 or 1 in strict mode`;
    if (node.$ref !== undefined) {
      const problem = visitRef(node.$ref, at);
      if (problem !== undefined) return problem;
    }
    for (const key of SUBSCHEMA_LISTS) {
      const list = node[key];
      if (!Array.isArray(list)) continue;
      for (const [index, child] of list.entries()) {
        const problem = visit(child, [...path, key, String(index)]);
        if (problem !== undefined) return problem;
      }
    }
    for (const key of SUBSCHEMA_MAPS) {
      const map = node[key];
      if (!isObject(map)) continue;
      for (const [name, child] of Object.entries(map)) {
        const problem = visit(child, [...path, key, name]);
        if (problem !== undefined) return problem;
      }
    }
    for (const key of ["items", "not"]) {
      if (node[key] === undefined) continue;
      const problem = visit(node[key], [...path, key]);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
  const visitRef = (ref: JsonValue, at: string): string | undefined => {
    if (typeof ref !== "string" || !ref.startsWith("#")) return `${at}: only local $refs are supported in strict mode`;
    if (expanding.has(ref)) return `${at}: recursive schemas ($ref ${ref}) are not supported in strict mode`;
    if (checked.has(ref)) return undefined;
    const segments = ref
      .slice(1)
      .split("/")
      .filter((segment) => segment !== "")
      .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"));
    let target: JsonValue | undefined = schema;
    for (const segment of segments) target = isObject(target) ? target[segment] : undefined;
    if (target === undefined) return `${at}: $ref ${ref} points nowhere`;
    expanding.add(ref);
    const problem = visit(target, segments);
    expanding.delete(ref);
    checked.add(ref);
    return problem;
  };
  return visit(schema, []);
}
