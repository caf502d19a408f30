import { YokeError } from "./errors.js";
import type { ActionId } from "./ids.js";
import type { ToolPolicyFacts } from "./policy.js";
import type { JsonValue } from "./json-value.js";
import { ToolSpecSchema, type ToolSpec } from "./model.js";
import { jsonSchemaOf, type InferSchemaOutput, type SchemaLike } from "./schema-adapter.js";
import { assertToolShape } from "./tool-shape.js";
import { DataClassificationSchema, NetworkPolicySchema, type DataClassification, type NetworkPolicy } from "./tool-contract.js";
import type {
  CompensationContext,
  ReconcileContext,
  ReconcileResult,
  SideEffectClass,
  ToolAccess,
  ToolCallContext,
  ToolDeclarationV1,
  ToolLoopPolicy,
  ToolOutput,
} from "./tool-declaration.js";

/** Default `timeoutMs` of a tool. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/**
 * What `defineTool` takes. `input` is any Standard Schema (zod 4 or 3, valibot, arktype) or
 * `jsonSchema(json, { validate })`; the handler receives its validated output.
 */
export interface ToolDefinition<Input extends SchemaLike = SchemaLike> {
  /** `[a-zA-Z0-9_-]{1,64}`, unique within a harness. */
  name: string;
  description: string;
  /** The model's arguments are validated by this schema's own validator; its JSON Schema is what the model sees. */
  input: Input;
  /**
   * What running the tool twice does to the world, which fixes what a resume may do with a
   * call a crash cut: `none` and `idempotent` calls are attempted again under the same action
   * id; `reversible` and `irreversible` ones only after `reconcile` says the effect did not
   * happen (without a reconciler, the run escalates).
   */
  sideEffect: SideEffectClass;
  /**
   * Default DEFAULT_TOOL_TIMEOUT_MS, from the attempt's lease. On expiry the signal aborts:
   * before dispatch the attempt fails (retryable); after dispatch a `none` tool fails with
   * TOOL_TIMEOUT and any other becomes `uncertain` and is reconciled.
   */
  timeoutMs?: number;
  /** Validates structured output (any Standard Schema); a mismatch becomes a TOOL_OUTPUT_INVALID result. */
  output?: SchemaLike;
  /** Characters of content the model is shown; longer content is cut and marked truncated. */
  outputBudget?: number;
  /** Attempts one action may take in all. Default 3. */
  maxAttempts?: number;
  /** How sensitive what the tool reads or returns is: `public | internal | confidential | restricted`. Default `internal`. */
  dataClassification?: DataClassification;
  /** Where the tool may reach: `{ egress: "none" }`, `{ egress: "hosts", hosts: [...] }`, or `{ egress: "any" }` (the default). */
  network?: NetworkPolicy;
  /** Who answers for the tool (a team, a service); discovery can filter by it. */
  owner?: string;
  /** The resources a call reads and writes. Default: `none` reads everything, other classes write everything. */
  access?: (input: InferSchemaOutput<Input>) => ToolAccess;
  /** What one call means to policy (verb, resource, destination arguments, …). Default: verb = name, resource = `tool:<name>`. */
  policy?: (input: InferSchemaOutput<Input>) => ToolPolicyFacts;
  /**
   * A person approves a call before it runs: `true` for every call, or a deterministic
   * function of the parsed arguments, evaluated once when the call is admitted (rule
   * `tool:needsApproval`; with a policy, the stricter of the two decides).
   */
  needsApproval?: boolean | ((input: InferSchemaOutput<Input>) => boolean);
  /** JSON pointers into the structured output whose values are the system's own records (trusted for provenance). */
  trustedOutputFields?: readonly string[];
  /** Loop detection for this tool: `{ threshold: 5 }`, or `{ optOut: "polls a queue; identical calls are expected" }`. */
  loop?: ToolLoopPolicy;
  /**
   * Runs the call. A throw becomes a TOOL_FAILED result for the model (it never ends the
   * run); throw `YokeError("TOOL_OUTCOME_UNKNOWN")` when the effect may have happened.
   */
  execute(input: InferSchemaOutput<Input>, context: ToolCallContext): Promise<ToolOutput>;
  /** Asked when the outcome of an action is uncertain: did the effect of `actionId` happen? `context.fencingToken`: present it to the backend. */
  reconcile?: (actionId: ActionId, receipt: JsonValue | undefined, context: ReconcileContext) => Promise<ReconcileResult>;
  /** Undoes a committed effect when a later action of its batch fails; idempotent under `context.idempotencyKey`. */
  compensate?: (input: InferSchemaOutput<Input>, context: CompensationContext) => Promise<void>;
}

/**
 * A tool a runtime can offer and run: its definition plus the spec the model is shown.
 *
 * @example
 * ```ts
 * const echo: Tool = defineTool({
 *   name: "echo",
 *   description: "Repeat the text.",
 *   input: z.object({ text: z.string() }),
 *   sideEffect: "none",
 *   execute: async ({ text }) => text,
 * });
 * echo.spec; // { name: "echo", description: "Repeat the text.", inputSchema: { type: "object", … } }
 * ```
 */
export interface Tool<Input extends SchemaLike = SchemaLike>
  extends ToolDefinition<Input>,
    Omit<ToolDeclarationV1<InferSchemaOutput<Input>>, "input" | keyof ToolDefinition<Input>> {
  readonly specificationVersion: "v1";
  readonly timeoutMs: number;
  /** Name, description and the JSON Schema of the input, as offered to the model. */
  readonly spec: ToolSpec;
}

/** Any tool, whatever its input schema (`any`: a tool's input type sits in its handler's parameters). */
// biome-ignore lint/suspicious/noExplicitAny: a handler takes its input as a parameter, so Tool<unknown> would not accept a Tool<{ path: string }>
export type AnyTool = Tool<any>;

/**
 * Declares a tool: checks it and computes the spec the model is shown, once. The input may
 * be any Standard Schema: zod 4 and zod 3 (its common types), arktype and valibot through
 * `toStandardJsonSchema` give their JSON Schema themselves; anything else is wrapped with
 * `jsonSchema(json, { validate: schema })`. Throws CONFIG_INVALID — here, never during a run
 * — for a missing or bad name, description, sideEffect or execute, a bad timeout, budget or attempt count, or an input schema with no JSON Schema
 * form (the model could not be told what to send).
 *
 * @example
 * ```ts
 * import * as v from "valibot";
 * import { toStandardJsonSchema } from "@valibot/to-json-schema";
 *
 * const add = defineTool({
 *   name: "add",
 *   description: "Add two numbers.",
 *   input: toStandardJsonSchema(v.object({ a: v.number(), b: v.number() })),
 *   sideEffect: "none",
 *   execute: async ({ a, b }) => String(a + b),
 * });
 * add.spec.inputSchema.type; // "object"
 * ```
 */
export function defineTool<Input extends SchemaLike>(definition: ToolDefinition<Input>): Tool<Input> {
  assertToolShape(definition);
  const timeoutMs = definition.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new YokeError("CONFIG_INVALID", `tool ${definition.name}: timeoutMs must be a positive number`, {
      details: { tool: definition.name, timeoutMs },
    });
  }
  // The model produces the schema's input side (defaults are optional to it).
  const inputSchema = jsonSchemaOf(definition.input, `tool ${definition.name}: input`);
  if (definition.output !== undefined && typeof (definition.output as Partial<SchemaLike> | null)?.["~standard"]?.validate !== "function") {
    throw new YokeError("CONFIG_INVALID", `tool ${definition.name}: output must be a Standard Schema (zod, valibot, arktype, jsonSchema())`, {
      details: { tool: definition.name },
    });
  }
  const spec = ToolSpecSchema.safeParse({ name: definition.name, description: definition.description, inputSchema });
  if (!spec.success) {
    throw new YokeError("CONFIG_INVALID", `tool ${JSON.stringify(definition.name)} is not a valid tool spec: ${spec.error.message}`, {
      details: { tool: definition.name },
      cause: spec.error,
    });
  }
  for (const [option, value] of [
    ["outputBudget", definition.outputBudget],
    ["maxAttempts", definition.maxAttempts],
  ] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
      throw new YokeError("CONFIG_INVALID", `tool ${definition.name}: ${option} must be a positive integer`, {
        details: { tool: definition.name, [option]: value },
      });
    }
  }
  if (definition.dataClassification !== undefined && !DataClassificationSchema.safeParse(definition.dataClassification).success) {
    throw new YokeError("CONFIG_INVALID", `tool ${definition.name}: dataClassification must be one of ${DataClassificationSchema.options.join(", ")}`, {
      details: { tool: definition.name },
    });
  }
  if (definition.network !== undefined && !NetworkPolicySchema.safeParse(definition.network).success) {
    throw new YokeError("CONFIG_INVALID", `tool ${definition.name}: network must be { egress: "none" | "any" } or { egress: "hosts", hosts: string[] }`, {
      details: { tool: definition.name },
    });
  }
  const needsApproval: unknown = definition.needsApproval;
  if (needsApproval !== undefined && typeof needsApproval !== "boolean" && typeof needsApproval !== "function") {
    throw new YokeError("CONFIG_INVALID", `tool ${definition.name}: needsApproval must be a boolean or a function of the arguments`, {
      details: { tool: definition.name, option: "needsApproval" },
    });
  }
  const loop = definition.loop;
  if (
    loop !== undefined &&
    (typeof loop !== "object" ||
      loop === null ||
      (loop.threshold !== undefined && (!Number.isInteger(loop.threshold) || loop.threshold < 2)) ||
      (loop.optOut !== undefined && (typeof loop.optOut !== "string" || loop.optOut.trim() === "")) ||
      !isFieldPathList(loop.caseInsensitive))
  ) {
    throw new YokeError(
      "CONFIG_INVALID",
      `tool ${definition.name}: loop must be { threshold?: integer >= 2, optOut?: non-empty reason, caseInsensitive?: dotted argument paths }`,
      {
        details: { tool: definition.name },
      },
    );
  }
  return { ...definition, specificationVersion: "v1", timeoutMs, spec: spec.data };
}

/** Undefined, or a list of dotted argument paths (`"path"`, `"filter.owner"`): what `ToolLoopPolicy.caseInsensitive` takes. */
function isFieldPathList(value: unknown): boolean {
  return value === undefined || (Array.isArray(value) && value.every((path) => typeof path === "string" && /^[^.\s]+(\.[^.\s]+)*$/.test(path)));
}
