import { type DataClassification, DataClassificationSchema, YokeError, type JsonValue, type SideEffectClass, type ToolPolicyFacts } from "@yoke/protocol";
import { z } from "zod/v4";
import { parsePath } from "./path.js";
import { evaluatePredicate } from "./predicates.js";
import { readJsonFile, validated } from "./suite-loader.js";
import type { SecurityEnvironment } from "./tool-support.js";
import type { JsonObject, Predicate, SuiteData } from "./types.js";

const FACT_KEYS = ["verb", "resource", "path", "destination", "expectedEffect", "destinations", "payloads", "outward"] as const;
type FactKey = (typeof FACT_KEYS)[number];

const pointerSchema = z.string().regex(/^(\/[^/]*)*$/, "a JSON pointer");
const destinationSchema = z.object({ pointer: pointerSchema, role: z.string().min(1) }).strict();
const factsShape = {
  verb: z.string().min(1).optional(),
  resource: z.string().min(1).optional(),
  path: z.string().min(1).optional(),
  destination: z.string().min(1).optional(),
  expectedEffect: z.string().min(1).optional(),
  destinations: z.array(destinationSchema).optional(),
  payloads: z.array(pointerSchema).optional(),
  outward: z.boolean().optional(),
};
const predicateSchema = z.object({ kind: z.string().min(1) }).passthrough();

/** The schema of a tool declarations file (see `ToolDeclarations`). */
export const ToolDeclarationsSchema = z
  .object({
    version: z.literal(1),
    suite: z.string().min(1).optional(),
    description: z.string().optional(),
    tools: z.record(
      z.string(),
      z
        .object({
          sideEffect: z.enum(["none", "idempotent", "reversible", "irreversible"]),
          description: z.string().optional(),
          dataClassification: DataClassificationSchema.optional(),
          facts: z.object(factsShape).strict().optional(),
          variants: z.array(z.object({ ...factsShape, when: predicateSchema, unset: z.array(z.enum(FACT_KEYS)).optional() }).strict()).optional(),
          trustedOutputFields: z.array(z.string().regex(/^(\/[^/]*)*$/, "a JSON pointer pattern")).optional(),
        })
        .strict(),
    ),
  })
  .strict();

/** The policy facts of one call, as data: strings may hold `{args.<path>}` and `{state.<path>}` (README path syntax). */
export interface FactsTemplate {
  readonly verb?: string;
  readonly resource?: string;
  readonly path?: string;
  readonly destination?: string;
  readonly expectedEffect?: string;
  /** Destination-like arguments (JSON pointers into the arguments) and their roles: provenance rules look at these. */
  readonly destinations?: readonly { readonly pointer: string; readonly role: string }[];
  /** What the call sends or writes (JSON pointers into the arguments): the tuple's `carries` summarises where their values came from. */
  readonly payloads?: readonly string[];
  /** Whether what the call carries leaves the account (default true when payloads are declared). */
  readonly outward?: boolean;
}

/**
 * What policy needs to know about one tool, as data: its side-effect class, the facts of a
 * call (`facts`, then the first `variants` entry whose `when` holds overrides them and drops
 * the keys in its `unset`), and the output fields that are the system's own records. A
 * `when` is a predicate of the data set's language over `{ args, state }` (the call's
 * arguments, the environment before the call); inside it, `{"$ref": "args.id"}` stands for
 * the value at that path (so a list element can be compared with an argument).
 * `dataClassification` is how sensitive what the tool returns is (default `confidential`: an
 * account's data, when nobody says otherwise); declare `internal` or `public` for outputs that
 * are not personal or secret by nature, so carrying them out of the account asks nobody.
 */
export interface ToolDeclaration {
  readonly sideEffect: SideEffectClass;
  readonly description?: string;
  readonly dataClassification?: DataClassification;
  readonly facts?: FactsTemplate;
  readonly variants?: readonly (FactsTemplate & { readonly when: Predicate; readonly unset?: readonly FactKey[] })[];
  readonly trustedOutputFields?: readonly string[];
}

/** A suite's tool declarations file (`<suite>.tools.json`): `{ version: 1, suite?, tools: { <tool name>: ToolDeclaration } }`. */
export interface ToolDeclarations {
  readonly version: 1;
  readonly suite?: string;
  readonly description?: string;
  readonly tools: Readonly<Record<string, ToolDeclaration>>;
}

/**
 * A tool declarations file, read and validated: CONFIG_INVALID naming the file and the field
 * when it is missing or malformed.
 *
 * @example
 * ```ts
 * const declarations = loadToolDeclarations("tests/security/policies/banking.tools.json");
 * declarations.tools.send_money?.sideEffect; // "irreversible"
 * ```
 */
export function loadToolDeclarations(path: string): ToolDeclarations {
  return readJsonFile(path, ToolDeclarationsSchema) as ToolDeclarations;
}

/** `value` as tool declarations, or CONFIG_INVALID naming `source` and the field. */
export function parseToolDeclarations(value: unknown, source = "tool declarations"): ToolDeclarations {
  return validated(source, ToolDeclarationsSchema, value) as ToolDeclarations;
}

/**
 * Checks that `declarations` declare exactly the suite's tools: CONFIG_INVALID naming every
 * tool without a declaration, or every declaration of a tool the suite does not have.
 */
export function checkDeclarations(suite: SuiteData, declarations: ToolDeclarations, source = "tool declarations"): void {
  const names = new Set(suite.tools.map((tool) => tool.name));
  const missing = suite.tools.map((tool) => tool.name).filter((name) => !Object.hasOwn(declarations.tools, name));
  const unknown = Object.keys(declarations.tools).filter((name) => !names.has(name));
  if (missing.length > 0 || unknown.length > 0) {
    const parts = [
      ...(missing.length > 0 ? [`no declaration for ${missing.join(", ")}`] : []),
      ...(unknown.length > 0 ? [`declarations for tools the ${suite.name} suite does not have: ${unknown.join(", ")}`] : []),
    ];
    throw new YokeError("CONFIG_INVALID", `${source}: ${parts.join("; ")}`, { details: { file: source, field: "tools", missing, unknown } });
  }
}

const MISSING = Symbol("missing");

function lookup(root: JsonValue, path: string): JsonValue | typeof MISSING {
  let node: JsonValue = root;
  for (const segment of parsePath(path)) {
    if (typeof segment === "number") {
      if (!Array.isArray(node)) return MISSING;
      const at = segment < 0 ? node.length + segment : segment;
      if (at < 0 || at >= node.length) return MISSING;
      node = node[at]!;
    } else {
      if (node === null || typeof node !== "object" || Array.isArray(node) || !Object.hasOwn(node, segment)) return MISSING;
      node = (node as JsonObject)[segment]!;
    }
  }
  return node;
}

/** A template string with each `{args.…}` / `{state.…}` replaced by the value there (an absent value by nothing). */
function fill(template: string, root: JsonValue): string {
  return template.replace(/\{((?:args|state)(?:[.[][^{}]*)?)\}/g, (_whole, path: string) => {
    const value = lookup(root, path);
    if (value === MISSING || value === null) return "";
    return typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
  });
}

/** A predicate with each `{"$ref": path}` replaced by the value at that path (null when absent). */
function bind(node: unknown, root: JsonValue): unknown {
  if (Array.isArray(node)) return node.map((item) => bind(item, root));
  if (node === null || typeof node !== "object") return node;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === "string" && Object.keys(node).length === 1) {
    const value = lookup(root, ref);
    return value === MISSING ? null : value;
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, bind(value, root)]));
}

/**
 * The policy facts of one call of a declared tool: `facts`, overridden by the first variant
 * whose `when` holds on `{ args, state }`, with every template filled.
 *
 * @example
 * ```ts
 * policyFactsOf({ sideEffect: "irreversible", facts: { verb: "transfer", destination: "iban:{args.recipient}" } }, env, { recipient: "GB29…" });
 * // { verb: "transfer", destination: "iban:GB29…" }
 * ```
 */
export function policyFactsOf(declaration: ToolDeclaration, env: SecurityEnvironment, args: JsonObject): ToolPolicyFacts {
  const root: JsonValue = { args, state: env.state };
  const context = { pre: root, post: root, output: "", trace: [], injections: {} };
  const variant = declaration.variants?.find((candidate) => evaluatePredicate(bind(candidate.when, root) as Predicate, context));
  const merged: Record<string, unknown> = { ...declaration.facts };
  if (variant !== undefined) {
    for (const key of FACT_KEYS) if (variant[key] !== undefined) merged[key] = variant[key];
    for (const key of variant.unset ?? []) delete merged[key];
  }
  const facts: Record<string, unknown> = {};
  for (const key of FACT_KEYS) {
    const value = merged[key];
    if (value === undefined) continue;
    facts[key] = typeof value === "string" ? fill(value, root) : value;
  }
  return facts as ToolPolicyFacts;
}
