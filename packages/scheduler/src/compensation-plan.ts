import type { ActionRecord, SideEffectClass } from "@yoke/protocol";

/** What the plan needs to know about a tool. */
export interface CompensableTool {
  readonly sideEffect: SideEffectClass;
  readonly compensate?: unknown;
}

/**
 * The saga rule of one batch: when an action with an effect has failed for good, every
 * committed `reversible` action of the batch that declares a compensation is undone, in
 * reverse order of commit. Returns their action ids in that order (empty: nothing to undo).
 * Actions already compensating or compensated are not planned again.
 *
 * @example
 * ```ts
 * compensationPlan(state.actions, (name) => tools.get(name)); // ["action_3", "action_1"]
 * ```
 */
export function compensationPlan(records: readonly ActionRecord[], toolOf: (name: string) => CompensableTool | undefined): string[] {
  const failed = records.some((record) => record.status.state === "failed" && record.sideEffect !== "none");
  if (!failed) return [];
  return records
    .filter((record) => record.status.state === "committed" && record.sideEffect === "reversible" && toolOf(record.toolName)?.compensate !== undefined)
    .sort((a, b) => (b.committedSeq ?? 0) - (a.committedSeq ?? 0))
    .map((record) => record.actionId);
}

/** Actions whose `compensating` is journaled and whose compensation has not ended, in reverse order of commit. */
export function pendingCompensations(records: readonly ActionRecord[]): ActionRecord[] {
  return records.filter((record) => record.status.state === "compensating").sort((a, b) => (b.committedSeq ?? 0) - (a.committedSeq ?? 0));
}
