import type { Delegation } from "@yoke/protocol";
import type { UserTask } from "./types.js";

/** What the report says of the delegation the policy modes ran with. */
export const GROUND_TRUTH_PLANNER_NOTE =
  "the policy modes (nobody, honest, rubberStamp) run with a scripted delegation planner that stands for one that understood the user's request: for each side-effecting tool the user task's ground truth calls, a grant of that tool for as many calls (never their arguments, never anything from an injection task); the undefended mode runs without a delegation";

/** What a planning step is shown of a tool (structurally the runtime's `PlanningTool`). */
export interface PlannedTool {
  readonly name: string;
  readonly sideEffect: string;
}

/**
 * A scripted planning step for a user task: the delegation a planner that understood the
 * user's request would propose — one grant per side-effecting tool the task's ground truth
 * calls (`grantId` and tool glob: the tool's name), counting those calls. It reads only the
 * names of the ground truth's functions, never their arguments, and nothing of an injection
 * task; a tool the declarations say is read-only needs no grant. It is given to the runtime as
 * `planDelegation`, so it is called with the task and the tool declarations like any planner.
 *
 * @example
 * ```ts
 * createHarness({ provider, tools, policy, planDelegation: groundTruthPlanner(userTask) });
 * ```
 */
export function groundTruthPlanner(userTask: UserTask): (input: { readonly tools: readonly PlannedTool[] }) => Omit<Delegation, "source"> {
  return ({ tools }) => {
    const counts = new Map<string, number>();
    for (const call of userTask.groundTruth) {
      const tool = tools.find((candidate) => candidate.name === call.function);
      if (tool === undefined || tool.sideEffect === "none") continue;
      counts.set(call.function, (counts.get(call.function) ?? 0) + 1);
    }
    // A tool name is letters, digits, `_` and `-` (ToolSpec): as a glob it matches only itself.
    return { grants: [...counts].map(([name, max]) => ({ grantId: name, tools: [name], max })) };
  };
}
