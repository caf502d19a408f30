import { RunStateAccumulator, YokeError, budgetEntriesOf, type Delegation, type RunScope, type SchemaLike, type YokeEvent } from "@yoke/protocol";
import type { HarnessOptions, RunResult, StartOptions, WaitingRunResult } from "../harness-types.js";
import type { HarnessDeps } from "../run-context.js";
import type { HeldLease } from "../run-lease.js";
import { resolveSubagents } from "./subagent-options.js";
import { remainingDelegation } from "../delegation.js";
import { spawnSubagentTool, type ChildLink, type StartChild } from "./spawn-tool.js";

type Ended = RunResult | WaitingRunResult;
type Owned = <T>(
  deps: HarnessDeps,
  scope: RunScope,
  options: { signal: AbortSignal | undefined },
  body: (lease: HeldLease | undefined) => Promise<T>,
) => Promise<T>;

/**
 * A harness's resolved options, with subagents when asked for: the `spawn_subagent` tool
 * joins the harness's tools, and its children run on resolved options of their own (the
 * declared tool subset, the result schema as structured output, the child budget as limits
 * with the parent's prices), on the same journal, each in its own stream.
 */
export function withSubagents(
  options: HarnessOptions<SchemaLike | undefined>,
  resolve: (options: HarnessOptions<SchemaLike | undefined>) => HarnessDeps,
  startRun: (deps: HarnessDeps, scope: RunScope, task: string, start: StartOptions, lease: HeldLease | undefined, parent?: ChildLink) => Promise<Ended>,
  resumeRun: (deps: HarnessDeps, scope: RunScope, signal: AbortSignal | undefined, lease: HeldLease | undefined) => Promise<Ended>,
  owned: Owned,
): HarnessDeps {
  if (options.subagents === undefined) return resolve(options);
  if (options.registry !== undefined) {
    throw new YokeError("CONFIG_INVALID", "subagents need the harness's tools (tools: [...]), not a registry", { details: { option: "subagents" } });
  }
  const tools = options.tools ?? [];
  const subagents = resolveSubagents(options.subagents, new Set(tools.map((tool) => tool.name)))!;
  const pricing = options.budget?.pricing;
  const systemPrompt = subagents.systemPrompt ?? options.systemPrompt;
  // The parent's completion checks judge the parent's answer, not a child's claims: a child has its own (`subagents.verifiers`).
  // A child never plans its delegation: its task is the parent model's text, not the user's; it gets its parent's remaining grants.
  const {
    checkCompletion: _parentCheck,
    verifiers: _parentVerifiers,
    systemPrompt: _parentPrompt,
    subagents: _spawning,
    planDelegation: _parentPlanner,
    ...inherited
  } = options;
  const child = resolve({
    ...inherited,
    tools: tools.filter((tool) => subagents.tools.includes(tool.name)),
    output: subagents.result,
    budget: { limits: subagents.budget, ...(pricing === undefined ? {} : { pricing }) },
    maxTurns: subagents.maxTurns,
    verifiers: [...subagents.verifiers],
    ...(systemPrompt === undefined ? {} : { systemPrompt }),
  });
  const startChild: StartChild = async (task, runId, link, fork, signal) => {
    const scope = { tenantId: child.tenantId, runId };
    const ended = await owned(child, scope, { signal }, async (lease) => {
      // A child that exists keeps the fork its run.started holds, whatever its parent did since.
      if ((await child.journal.head(scope)) !== null) return resumeRun(child, scope, signal, lease);
      const forked = fork();
      const delegation = await parentRemaining(child, link.runId);
      const start = { runId, ...(signal === undefined ? {} : { signal }), ...(delegation === undefined ? {} : { delegation }) };
      return startRun(child, scope, task, start, lease, forked === undefined ? link : { ...link, fork: forked });
    });
    const charged: Record<string, number> = {};
    for await (const event of child.journal.read(scope)) {
      // `budget.settled`, or the settlement a model response, an action's outcome or a verifier's verdict carries.
      for (const entry of budgetEntriesOf(event as YokeEvent)) {
        if (entry.kind !== "settled") continue;
        for (const [dimension, value] of Object.entries(entry.data.charged)) charged[dimension] = (charged[dimension] ?? 0) + (value ?? 0);
      }
    }
    return { outcome: ended.outcome, output: ended.state.output, charged };
  };
  const deps = resolve({ ...options, tools: [...tools, spawnSubagentTool(subagents, startChild)] });
  return { ...deps, subagents };
}

/** The parent's delegation with only the counts it has left now (the spawn itself included): what a new child may do at most. */
async function parentRemaining(deps: HarnessDeps, parentRunId: string): Promise<Delegation | undefined> {
  const parent = new RunStateAccumulator();
  for await (const event of deps.journal.read({ tenantId: deps.tenantId, runId: parentRunId })) parent.apply(event);
  return parent.length === 0 ? undefined : remainingDelegation(parent.peek());
}
