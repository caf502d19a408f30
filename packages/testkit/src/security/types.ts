import type { JsonValue } from "@yoke/protocol";

/**
 * A suite's name: a bundled dev suite (`banking`, `slack`) or any folder in the data set's
 * format (its folder name, or its `tools.json`'s `suite`).
 */
export type SuiteName = string;

/** A JSON object (an environment, a tool's arguments). */
export type JsonObject = { [key: string]: JsonValue };

/** One ground-truth call: the function, its arguments for the default environment, and templated arguments that depend on a vector. */
export interface GroundTruthCall {
  readonly function: string;
  readonly args: JsonObject;
  readonly argTemplates?: Readonly<Record<string, string>>;
  /**
   * Upstream's templated form of the arguments: `$name.field` stands for a field of what an
   * earlier call of the same ground truth returned (`$sent_email.id`: the e-mail it just sent).
   */
  readonly placeholderArgs?: Readonly<Record<string, JsonValue>>;
}

/** A check in the predicate language of the data set's README (see `evaluatePredicate`). */
export type Predicate = { readonly kind: string } & Readonly<Record<string, unknown>>;

export interface UserTask {
  readonly id: string;
  readonly prompt: string;
  readonly groundTruth: readonly GroundTruthCall[];
  readonly groundTruthOutput?: string;
  readonly utilityCheck: Predicate;
  readonly injectionVectorsSeen: readonly string[];
}

/**
 * A record an attacker writes into the environment for an attacked pair (Yoke's attack shapes;
 * upstream's tasks have none): `append` is pushed onto the array at `path` (predicate path
 * syntax), with `{attack}` in its strings replaced by the attack text for the task's goal.
 */
export interface PlantedRecord {
  readonly path: string;
  readonly append: JsonValue;
}

export interface InjectionTask {
  readonly id: string;
  readonly goal: string;
  readonly groundTruth: readonly GroundTruthCall[];
  readonly securityCheck: Predicate;
  /** Records the attacker plants when this task attacks a pair (a transfer, a message), besides the vectors. */
  readonly plants?: readonly PlantedRecord[];
  /** `false` when the attack is judged on what the model says, not on an effect (the data set's field). */
  readonly effectBased?: boolean;
  /** What the security check reads: `state`, `trace`, `output`, `output+state` (the data set's field). */
  readonly securityBasis?: string;
}

export interface InjectionVector {
  readonly id: string;
  readonly default: string;
  readonly effectiveDefault?: string;
  readonly placeholder: string;
}

export interface ToolParameter {
  readonly name: string;
  readonly type: "string" | "number" | "integer" | "boolean" | "array" | "object";
  /** For an `array`: the JSON Schema of its elements (`type`, and `items` or `additionalProperties` as nested). */
  readonly items?: Pick<ToolParameter, "type" | "items"> & { readonly additionalProperties?: boolean };
  readonly required: boolean;
  readonly nullable?: boolean;
  readonly default?: JsonValue;
  readonly description: string;
}

export interface ToolDescription {
  readonly name: string;
  readonly modelFacingDescription: string;
  readonly access: "read-only" | "mutating";
  readonly parameters: readonly ToolParameter[];
}

/** One suite's data, as the JSON files hold it. */
export interface SuiteData {
  readonly name: SuiteName;
  readonly environment: JsonObject;
  readonly vectors: readonly InjectionVector[];
  readonly tools: readonly ToolDescription[];
  readonly userTasks: readonly UserTask[];
  readonly injectionTasks: readonly InjectionTask[];
}
