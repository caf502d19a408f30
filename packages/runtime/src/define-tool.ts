import {
  ToolSpecSchema,
  YokeError,
  type CompensationContext,
  type JsonValue,
  type ReconcileResult,
  type ActionId,
  type ToolAccess,
  type ToolCallContext,
  type ToolDeclarationV1,
  type ToolOutput as ProtocolToolOutput,
  type ToolSpec,
} from "@yoke/protocol";
import { z } from "zod";

/**
 * What running a tool twice does to the world, which fixes what a resume may do with a call
 * a crash cut: `none` and `idempotent` calls are attempted again under the same action id;
 * `reversible` and `irreversible` ones only after their `reconcile` says the effect did not
 * happen (without a reconciler, the run escalates).
 */
export type SideEffect = "none" | "idempotent" | "reversible" | "irreversible";

/** Default `timeoutMs` of a tool. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/**
 * What a tool handler is told about the call it serves: `actionId` (also `idempotencyKey`)
 * is stable across attempts and is the key to hand to any external write; `attempt` is 1
 * for the first attempt; `signal` aborts at the deadline or when the run is cancelled.
 */
export type ToolContext = ToolCallContext;

/** A tool's answer: text for the model, optional structured output, optional receipt proving the effect. */
export type ToolOutput = ProtocolToolOutput;

/** What `defineTool` takes. */
export interface ToolDefinition<Input extends z.ZodType = z.ZodType> {
  /** `[a-zA-Z0-9_-]{1,64}`, unique within a harness. */
  name: string;
  description: string;
  /** The model's arguments are validated against this schema; its JSON Schema is what the model sees. */
  input: Input;
  sideEffect: SideEffect;
  /**
   * Default DEFAULT_TOOL_TIMEOUT_MS, from the attempt's lease. On expiry the signal aborts:
   * before dispatch the attempt fails (retryable); after dispatch a `none` tool fails with
   * TOOL_TIMEOUT and any other becomes `uncertain` and is reconciled.
   */
  timeoutMs?: number;
  /** Validates structured output; a mismatch becomes a TOOL_OUTPUT_INVALID result. */
  output?: z.ZodType;
  /** Characters of content the model is shown; longer content is cut and marked truncated. */
  outputBudget?: number;
  /** Attempts one action may take in all. Default 3. */
  maxAttempts?: number;
  /** The resources a call reads and writes. Default: `none` reads everything, other classes write everything. */
  access?: (input: z.output<Input>) => ToolAccess;
  /**
   * Runs the call. A throw becomes a TOOL_FAILED result for the model (it never ends the
   * run); throw `YokeError("TOOL_OUTCOME_UNKNOWN")` when the effect may have happened.
   */
  execute(input: z.output<Input>, context: ToolContext): Promise<ToolOutput>;
  /** Asked when the outcome of an action is uncertain: did the effect of `actionId` happen? */
  reconcile?: (actionId: ActionId, receipt: JsonValue | undefined) => Promise<ReconcileResult>;
  /** Undoes a committed effect when a later action of its batch fails; idempotent under `context.idempotencyKey`. */
  compensate?: (input: z.output<Input>, context: CompensationContext) => Promise<void>;
}

/**
 * A tool the harness can offer and run: its definition plus the spec the model is shown.
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
export interface Tool<Input extends z.ZodType = z.ZodType>
  extends ToolDefinition<Input>,
    Omit<ToolDeclarationV1<z.output<Input>>, "input" | keyof ToolDefinition<Input>> {
  readonly specificationVersion: "v1";
  readonly timeoutMs: number;
  /** Name, description and the JSON Schema of the input, as offered to the model. */
  readonly spec: ToolSpec;
}

/**
 * Declares a tool. Throws CONFIG_INVALID for a bad name or timeout, or an input schema that
 * JSON Schema cannot express (the model could not be told what to send).
 */
export function defineTool<Input extends z.ZodType>(definition: ToolDefinition<Input>): Tool<Input> {
  const timeoutMs = definition.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new YokeError("CONFIG_INVALID", `tool ${definition.name}: timeoutMs must be a positive number`, {
      details: { tool: definition.name, timeoutMs },
    });
  }
  let inputSchema: unknown;
  try {
    // The model produces the schema's input side (defaults are optional to it).
    inputSchema = z.toJSONSchema(definition.input, { io: "input" });
  } catch (cause) {
    throw new YokeError("CONFIG_INVALID", `tool ${definition.name}: its input schema has no JSON Schema form`, {
      details: { tool: definition.name },
      cause,
    });
  }
  const spec = ToolSpecSchema.safeParse({ name: definition.name, description: definition.description, inputSchema });
  if (!spec.success) {
    throw new YokeError("CONFIG_INVALID", `tool ${JSON.stringify(definition.name)} is not a valid tool spec: ${spec.error.message}`, {
      details: { tool: definition.name },
      cause: spec.error,
    });
  }
  for (const [option, value] of [["outputBudget", definition.outputBudget], ["maxAttempts", definition.maxAttempts]] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
      throw new YokeError("CONFIG_INVALID", `tool ${definition.name}: ${option} must be a positive integer`, { details: { tool: definition.name, [option]: value } });
    }
  }
  return { ...definition, specificationVersion: "v1", timeoutMs, spec: spec.data };
}

/** Any tool, whatever its input schema. */
export type AnyTool = Tool<z.ZodType>;
