import { ToolSpecSchema, YokeError, type ActionId, type AttemptId, type JsonValue, type ToolSpec } from "@yoke/protocol";
import { z } from "zod";

/**
 * What running a tool twice does to the world, which fixes what a resume may do with a call
 * a crash cut: `none` and `idempotent` calls are run again; `reversible` and `irreversible`
 * ones are not (their result says the effect is unknown).
 */
export type SideEffect = "none" | "idempotent" | "reversible" | "irreversible";

/** Default `timeoutMs` of a tool. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/** What a tool handler is told about the call it serves. */
export interface ToolContext {
  /** Stable across attempts: the idempotency key to hand to any external write. */
  readonly actionId: ActionId;
  readonly attemptId: AttemptId;
  /** 1 for the first attempt; a resume that re-runs an interrupted call passes 2, 3, … */
  readonly attempt: number;
  /** Aborted on timeout or when the run is cancelled; stop work and reject when it fires. */
  readonly signal: AbortSignal;
}

/** A tool's answer: text for the model, or text plus structured output for the journal. */
export type ToolOutput = string | { content: string; output?: JsonValue };

/** What `defineTool` takes. */
export interface ToolDefinition<Input extends z.ZodType = z.ZodType> {
  /** `[a-zA-Z0-9_-]{1,64}`, unique within a harness. */
  name: string;
  description: string;
  /** The model's arguments are validated against this schema; its JSON Schema is what the model sees. */
  input: Input;
  sideEffect: SideEffect;
  /** Default DEFAULT_TOOL_TIMEOUT_MS. On expiry the signal aborts and the call ends with TOOL_TIMEOUT. */
  timeoutMs?: number;
  /** Runs the call. A throw becomes a TOOL_FAILED result for the model; it never ends the run. */
  execute(input: z.output<Input>, context: ToolContext): Promise<ToolOutput>;
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
export interface Tool<Input extends z.ZodType = z.ZodType> extends ToolDefinition<Input> {
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
  return { ...definition, timeoutMs, spec: spec.data };
}

/** Any tool, whatever its input schema. */
export type AnyTool = Tool<z.ZodType>;
