import type { JsonValue } from "@yoke/protocol";
import type { TraceCall } from "./predicates.js";
import type { JsonObject } from "./types.js";

/** The in-memory world one run's tools act on: the environment, and every call a tool actually ran. */
export interface SecurityEnvironment {
  /** The environment, mutated in place by the tools. */
  state: JsonObject;
  /** Calls that reached a tool handler (dispatched), with their validated arguments, in order. */
  readonly dispatched: TraceCall[];
}

/** An error a simulated tool raises: upstream's exception type and message, shown to the model as `<type>: <message>`. */
export class SimulatedToolError extends Error {
  constructor(
    readonly errorType: string,
    message: string,
  ) {
    super(`${errorType}: ${message}`);
    this.name = "SimulatedToolError";
  }
}

/**
 * One tool's implementation: the simulation of its effect on the environment (returns the
 * value upstream returns) and how its result is shown. What policy needs to know about the
 * tool (side-effect class, verb, destinations, trusted output fields) is data: a
 * `ToolDeclaration`.
 */
export interface ToolImplementation {
  run(env: SecurityEnvironment, input: JsonObject): JsonValue;
  /** Structured output for provenance (where the return value is not already an object, or only part of it is a system record). */
  structured?(result: JsonValue, env: SecurityEnvironment): JsonValue;
  /** Text for the model; default `renderOutput(result)`. */
  render?(result: JsonValue, input: JsonObject): string;
}
