import { YokeError, type BudgetAmounts, type JsonValue } from "@yoke/protocol";
import { z } from "zod/v4";
import { defineTool, type AnyTool } from "../define-tool.js";
import { checkShare, forkOf, type RunFork } from "./fork-source.js";
import { childReservationIdOf, childRunIdOf, SPAWN_SUBAGENT, type ResolvedSubagents } from "./subagent-options.js";

/** The link a child run journals to its parent (`run.started.parent` + `budget.opened.parent`). */
export interface ChildLink {
  readonly runId: string;
  readonly actionId: string;
  readonly contextRevision: number;
  readonly reservationId: string;
  /** The parent context the child starts from (`run.started.parent.fork`). */
  readonly fork?: RunFork;
}

/**
 * Starts (or, after a crash, resumes) the child run `runId` and returns how it ended. `fork`
 * is asked only when the child is new: a resumed child keeps the fork its `run.started` holds.
 */
export type StartChild = (
  task: string,
  runId: string,
  link: ChildLink,
  fork: () => RunFork | undefined,
  signal: AbortSignal | undefined,
) => Promise<{ outcome: { status: string; reason?: string } | undefined; output: unknown; charged: BudgetAmounts }>;

const SHARE_DESCRIPTION =
  'Ids of items of your context the subagent should see, e.g. ["message:3"]: the source="…" of a ⟦data …⟧ block you were shown (a tool result is message:<n>), or the [id] of context shown to you. It gets them as data (never as instructions), with your pinned constraints; it sees nothing else of your conversation.';

/**
 * The runtime's `spawn_subagent` tool. Idempotent: the child's run id is derived from the
 * action id, so a retry after a crash resumes the same child instead of starting another.
 * The child's structured output (validated by its result schema) is the action's output;
 * a child that ends without one fails the action with SUBAGENT_FAILED.
 */
export function spawnSubagentTool(subagents: ResolvedSubagents, startChild: StartChild): AnyTool {
  return defineTool({
    name: SPAWN_SUBAGENT,
    description: `Starts a subagent: a separate run with its own budget and the tools ${subagents.tools.join(", ") || "(none)"}, working on the task you give it, with the items of your context you share. It returns typed claims, each with evidence references.`,
    input: z.object({
      task: z.string().min(1).describe("What the subagent must find out or do, self-contained."),
      share: z.array(z.string().min(1)).optional().describe(SHARE_DESCRIPTION),
    }),
    sideEffect: "idempotent",
    timeoutMs: 3_600_000,
    async execute({ task, share }, context) {
      const parentRunId = context.run?.runId;
      const source = parentRunId === undefined ? undefined : subagents.forkSources.get(parentRunId);
      if (parentRunId === undefined || source === undefined) throw new YokeError("INTERNAL", "spawn_subagent ran without its run");
      // Before the child exists: an id the parent's request did not show fails the action, and no child starts.
      const shared = [...new Set(share ?? [])];
      checkShare(source.manifest, shared);
      const childRunId = childRunIdOf(context.actionId);
      const link: ChildLink = {
        runId: parentRunId,
        actionId: context.actionId,
        contextRevision: source.manifest?.contextRevision ?? 0,
        reservationId: childReservationIdOf(context.attemptId),
      };
      const ended = await startChild(task, childRunId, link, () => forkOf(source, task, shared), context.signal);
      subagents.charges.set(context.attemptId, ended.charged);
      const status = ended.outcome?.status;
      if ((status !== "completed" && status !== "verified_success") || ended.output === undefined) {
        throw new YokeError("SUBAGENT_FAILED", `subagent ${childRunId} ended ${status ?? "without an outcome"} without a result its schema accepts`, {
          details: { childRunId, status: status ?? null, ...(ended.outcome?.reason === undefined ? {} : { reason: ended.outcome.reason }) },
        });
      }
      const output = ended.output as JsonValue;
      return { content: JSON.stringify({ childRunId, result: output }), output: { childRunId, result: output } };
    },
  }) as AnyTool;
}
