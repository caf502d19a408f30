import { YokeError, canonicalJson, parseDelegation, type Delegation, type RunState, type YokeEventDraft } from "@yoke/protocol";
import type { HarnessDeps } from "./run-context.js";
import type { PlanningTool } from "./delegation-types.js";

/**
 * The delegation a new run pins: the start's (`StartOptions.delegation`), else the planner's
 * on the task and the tool declarations, else none. CONFIG_INVALID for a malformed one.
 */
export async function delegationForStart(deps: HarnessDeps, task: string, given: unknown): Promise<Delegation | undefined> {
  if (given !== undefined) return parseDelegation(withSource(given, "application"), "delegation");
  if (deps.planDelegation === undefined) return undefined;
  const planned = await deps.planDelegation({ task, tools: planningTools(deps) });
  // The planner speaks for itself only: whatever source it names, the journal says a planner proposed it.
  return planned === undefined ? undefined : parseDelegation({ ...(planned as object), source: "planner" }, "planDelegation");
}

/** `run.delegated`, in the run's first transaction. */
export function delegatedDraft(deps: HarnessDeps, delegation: Delegation): YokeEventDraft {
  return { type: "run.delegated", at: deps.clock.now(), causationId: null, data: { delegation } };
}

/**
 * A resume keeps the delegation the run pinned. Given one, it must be that one (same grants,
 * same counts; `source` defaults as at start): DELEGATION_CHANGED otherwise, before anything
 * is appended, as for a run that pinned none.
 */
export function checkPinnedDelegation(state: RunState, given: unknown): void {
  if (given === undefined) return;
  const wanted = parseDelegation(withSource(given, "application"), "delegation");
  const pinned = state.delegation?.delegation;
  if (pinned !== undefined && canonicalJson(pinned) === canonicalJson(wanted)) return;
  const had = pinned === undefined ? "no delegation" : "another delegation";
  throw new YokeError("DELEGATION_CHANGED", `run ${state.runId} pinned ${had} when it started; a resume cannot change it`, {
    details: { tenantId: state.tenantId, runId: state.runId },
  });
}

function withSource(given: unknown, source: Delegation["source"]): unknown {
  return given !== null && typeof given === "object" && !Array.isArray(given) && !Object.hasOwn(given, "source") ? { ...given, source } : given;
}

/** The declarations a planner is shown: the registry's pinned revisions (or the harness's tools), by name. */
function planningTools(deps: HarnessDeps): PlanningTool[] {
  const tools: PlanningTool[] = [];
  for (const tool of deps.tools.values()) {
    tools.push({
      name: tool.name,
      description: tool.spec.description,
      inputSchema: tool.spec.inputSchema,
      sideEffect: tool.sideEffect,
      dataClassification: tool.dataClassification ?? "internal",
      ...(tool.trustedOutputFields === undefined ? {} : { trustedOutputFields: [...tool.trustedOutputFields] }),
    });
  }
  if (tools.length > 0 || deps.registry === undefined) return tools;
  return deps.registry.snapshot().revisions.map((revision) => ({
    name: revision.name,
    description: revision.spec.description,
    inputSchema: revision.spec.inputSchema,
    sideEffect: revision.contract.sideEffect,
    dataClassification: revision.contract.dataClassification,
  }));
}
