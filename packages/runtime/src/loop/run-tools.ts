import {
  newId,
  toolCallsOf,
  type ActionId,
  type AttemptId,
  type PendingToolCall,
  type RunState,
  type ToolResultEnvelope,
  type YokeEventDraft,
} from "@yoke/protocol";
import { commit, preview, type RunContext } from "../run-context.js";
import { errorEnvelope, type ToolInvocation } from "../tool-executor.js";
import { validateCalls, type CallDecision } from "../validate-calls.js";
import { currentTurn, lastResponse } from "./current-turn.js";
import { nextTurnDrafts } from "./next-turn.js";

/**
 * Phase `tools_pending`: run the started calls and commit, in one transaction, every result
 * (in proposal order) and the next turn's start and request (or the run's end).
 *
 * Calls this process did not start come first, in a commit of their own before anything
 * runs: a call never started is started (or rejected); a call a crashed process started and
 * never finished is run again as a new attempt of the same action when its tool has no side
 * effect or an idempotent one, and otherwise completed with TOOL_INTERRUPTED, not re-run.
 */
export async function runTools(context: RunContext): Promise<void> {
  const interrupted = await recoverCalls(context);
  const state = context.accumulator.peek();
  if (state.phase !== "tools_pending") return; // recovery rejected every remaining call
  const pending = state.pendingToolCalls;
  const toRun = pending.filter((call) => call.started !== undefined && context.dispatchable.has(call.started.attemptId));
  const invocations = toRun.map((call): ToolInvocation => {
    const started = call.started!;
    return {
      tool: context.deps.tools.get(call.toolName)!,
      input: context.dispatchable.get(started.attemptId),
      actionId: started.actionId as ActionId,
      attemptId: started.attemptId as AttemptId,
      attempt: started.attempt,
    };
  });
  const results = await context.deps.executor.executeAll(invocations, context.signal);
  const byIndex = new Map(interrupted);
  toRun.forEach((call, position) => byIndex.set(call.index, results[position]!));

  const turnId = currentTurn(state);
  const completions: YokeEventDraft[] = pending.map((call) => {
    const started = call.started!;
    const result = byIndex.get(call.index)!;
    context.logger.info(
      {
        turnId,
        toolName: call.toolName,
        actionId: started.actionId,
        attempt: started.attempt,
        status: result.status,
        code: result.error?.code,
        durationMs: result.timing.durationMs,
      },
      "tool call completed",
    );
    return {
      type: "tool.completed",
      at: context.deps.clock.now(),
      causationId: started.actionId,
      data: { turnId, toolCallId: call.toolCallId, toolName: call.toolName, actionId: started.actionId, attemptId: started.attemptId, result },
    };
  });
  const next = nextTurnDrafts(context, preview(context, completions, state.length));
  await commit(context, [...completions, ...next]);
  for (const call of toRun) context.dispatchable.delete(call.started!.attemptId);
}

/**
 * Journals what must be durable before this process runs anything: starts for calls never
 * started, rejections, and new attempts for interrupted calls that are safe to redo. Returns
 * the results of interrupted calls that are not (keyed by proposal index).
 */
async function recoverCalls(context: RunContext): Promise<Map<number, ToolResultEnvelope>> {
  const state = context.accumulator.peek();
  const orphans = state.pendingToolCalls.filter((call) => call.started === undefined || !context.dispatchable.has(call.started.attemptId));
  const interrupted = new Map<number, ToolResultEnvelope>();
  if (orphans.length === 0) return interrupted;

  const decisions = validateCalls(toolCallsOf(lastResponse(state)), context.deps.tools);
  const drafts: YokeEventDraft[] = [];
  const dispatchable: [string, unknown][] = [];
  for (const call of orphans) {
    const decision = decisions[call.index]!;
    if (call.started === undefined) {
      drafts.push(startOrReject(context, state, call, decision, dispatchable));
    } else if (decision.kind === "start" && (decision.tool.sideEffect === "none" || decision.tool.sideEffect === "idempotent")) {
      drafts.push(startDraft(context, state, call, decision, call.started.actionId, call.started.attempt + 1, dispatchable));
      context.logger.warn({ toolName: call.toolName, actionId: call.started.actionId, attempt: call.started.attempt + 1 }, "re-running an interrupted tool call");
    } else {
      const at = context.deps.clock.now();
      const why =
        decision.kind === "start"
          ? `the call was cut by a crash after it started; the effect of this ${decision.tool.sideEffect} tool may or may not have happened; not retried`
          : `the call was cut by a crash after it started; the effect may or may not have happened; it cannot be re-run (${decision.code})`;
      interrupted.set(call.index, errorEnvelope("TOOL_INTERRUPTED", why, at, context.deps.clock));
      context.logger.warn({ toolName: call.toolName, actionId: call.started.actionId, code: "TOOL_INTERRUPTED" }, "interrupted tool call not re-run");
    }
  }
  if (drafts.length > 0) {
    await commit(context, drafts);
    for (const [attemptId, value] of dispatchable) context.dispatchable.set(attemptId, value);
  }
  return interrupted;
}

function startOrReject(
  context: RunContext,
  state: RunState,
  call: PendingToolCall,
  decision: CallDecision,
  dispatchable: [string, unknown][],
): YokeEventDraft {
  if (decision.kind === "start") return startDraft(context, state, call, decision, newId(context.deps.ids, "action"), 1, dispatchable);
  const turnId = currentTurn(state);
  const at = context.deps.clock.now();
  return {
    type: "tool.rejected",
    at,
    causationId: turnId,
    data: { turnId, toolCallId: call.toolCallId, toolName: call.toolName, code: decision.code, result: errorEnvelope(decision.code, decision.message, at, context.deps.clock) },
  };
}

function startDraft(
  context: RunContext,
  state: RunState,
  call: PendingToolCall,
  decision: Extract<CallDecision, { kind: "start" }>,
  actionId: string,
  attempt: number,
  dispatchable: [string, unknown][],
): YokeEventDraft {
  const attemptId = newId(context.deps.ids, "attempt");
  dispatchable.push([attemptId, decision.value]);
  return {
    type: "tool.started",
    at: context.deps.clock.now(),
    causationId: actionId,
    data: { turnId: currentTurn(state), toolCallId: call.toolCallId, toolName: call.toolName, actionId, attemptId, attempt, input: decision.input },
  };
}
