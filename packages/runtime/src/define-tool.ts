/**
 * The tool vocabulary lives in @yoke/protocol, so a custom runtime can define tools without
 * this package; the runtime re-exports it under the names it has always had.
 */
import type { SideEffectClass, ToolCallContext, ToolOutput as ProtocolToolOutput } from "@yoke/protocol";

export { DEFAULT_TOOL_TIMEOUT_MS, defineTool, jsonSchema } from "@yoke/protocol";
export type { AnyTool, JsonSchemaDefinition, Tool, ToolDefinition } from "@yoke/protocol";

/**
 * What running a tool twice does to the world, which fixes what a resume may do with a call
 * a crash cut: `none` and `idempotent` calls are attempted again under the same action id;
 * `reversible` and `irreversible` ones only after their `reconcile` says the effect did not
 * happen (without a reconciler, the run escalates).
 */
export type SideEffect = SideEffectClass;

/**
 * What a tool handler is told about the call it serves: `actionId` (also `idempotencyKey`)
 * is stable across attempts and is the key to hand to any external write; `attempt` is 1
 * for the first attempt; `signal` aborts at the deadline or when the run is cancelled.
 */
export type ToolContext = ToolCallContext;

/** A tool's answer: text for the model, optional structured output, optional receipt proving the effect. */
export type ToolOutput = ProtocolToolOutput;
