import type { DataClassification, Delegation, SideEffectClass, ToolSpec } from "@yoke/protocol";

// The shapes a run's delegation is given in: by the application at start, or by a planning step.

/** A delegation as an application gives it: `source` defaults to `"application"`. */
export type DelegationOption = Omit<Delegation, "source"> & { readonly source?: Delegation["source"] };

/** What a planning step is shown of one tool: its declaration, never a result. */
export interface PlanningTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ToolSpec["inputSchema"];
  readonly sideEffect: SideEffectClass;
  readonly dataClassification: DataClassification;
  /** The output fields the tool declares a system of record (`trustedOutputFields`), when it declares any. */
  readonly trustedOutputFields?: readonly string[];
}

/** What a planning step is given: the user's task input and the run's tool declarations, before anything else exists. */
export interface DelegationPlanningInput {
  readonly task: string;
  readonly tools: readonly PlanningTool[];
}

/**
 * A planning step: proposes the run's delegation from the user's task and the tool
 * declarations alone, before the first model call and before any tool output exists.
 * Returns the grants (`source` is journaled as `"planner"`), or undefined for none.
 */
export type DelegationPlanner = (
  input: DelegationPlanningInput,
) => Omit<DelegationOption, "source"> | undefined | Promise<Omit<DelegationOption, "source"> | undefined>;
