import { toolCallsOf, type ActionRecord, type PendingToolCall, type RunState, type YokeEventDraft } from "@yoke/protocol";
import type { Authorization, BatchTransaction, Settlement } from "@yoke/scheduler";
import type { DispatchItem } from "@yoke/scheduler";
import { boundResults } from "../bound-output.js";
import type { RunContext } from "../run-context.js";
import { commitTurn } from "../turn/turn.js";
import { errorEnvelope } from "../tool-executor.js";
import type { CallDecision } from "../validate-calls.js";
import { driftOf, judgeAdmitted, judgeResponseCalls } from "../tool-admission.js";
import { excessCallsDraft } from "./excess-calls.js";
import { rejectedCall } from "./rejected-call.js";
import { takeGrant } from "../delegation.js";
import { accessOfCall, authorizationOf, decideCall, deniedMessage, isBlocked, type Blockers } from "../policy-admission.js";
import { admitProposed } from "../turn/admit.js";
import { currentTurn, lastResponse } from "./current-turn.js";
import { alsoEscalated, type Escalation } from "./escalation.js";
import { NO_POLICY_ENGINE, stricterDecision, toolAsks } from "../tool-approval.js";

export interface Recovery {
  readonly drafts: YokeEventDraft[];
  readonly items: DispatchItem[];
  readonly escalation: Escalation | undefined;
}

/**
 * Journal drafts for every pending call this process cannot simply dispatch: calls never
 * proposed (another writer's response) are admitted or rejected; actions a dead process
 * left are recovered through the scheduler. Returns nothing to commit when every pending
 * call is an attempt this process leased.
 */
export async function recoverCalls(context: RunContext, state: RunState, batch: BatchTransaction): Promise<Recovery> {
  const drafts: YokeEventDraft[] = [];
  const items: DispatchItem[] = [];
  let escalation: Escalation | undefined;
  let judged: Awaited<ReturnType<typeof judgeResponseCalls>> | undefined;
  const calls = toolCallsOf(lastResponse(state));
  const decisionOf = async (call: PendingToolCall, record: ActionRecord | undefined): Promise<CallDecision> => {
    // An action keeps the revision it was admitted under: never the live definition.
    if (record?.toolRevision !== undefined) return judgeAdmitted(context, state, calls[call.index]!, record.toolRevision, record.actionId);
    judged ??= await judgeResponseCalls(context, state, calls);
    return judged.decisions[call.index]!;
  };
  const turnId = currentTurn(state);
  const blockers: Blockers = [];
  // Calls past the cap that no verdict answered yet: one bounded answer, as when judged with their response.
  const excess = excessCallsDraft(context, state, calls, state.pendingToolCalls, turnId);
  if (excess !== undefined) drafts.push(excess);
  for (const call of state.pendingToolCalls) {
    if (excess !== undefined && call.index >= state.maxToolCallsPerTurn!) continue;
    if (call.started !== undefined && context.dispatchable.has(call.started.attemptId)) continue;
    const record = state.actions.find((action) => action.actionId === call.actionId);
    if (record?.status.state === "awaiting_approval") {
      const parked = await admitProposed(context, { state, batch, turnId, call: calls[call.index]!, blockers, parked: record });
      drafts.push(...parked.drafts);
      if (parked.item !== undefined) items.push(parked.item);
      continue;
    }
    let decision: CallDecision;
    try {
      decision = await decisionOf(call, record);
    } catch (error) {
      // The revision of an in-flight action drifted while no process ran it: journal the drift, then stop.
      const drift = driftOf(error, state);
      if (drift !== undefined) await commitTurn(context, [{ type: "tool.drifted", at: context.deps.clock.now(), causationId: turnId, data: drift }]);
      throw error;
    }
    // Compatibility events the judging found come before the verdicts they led to.
    // Splicing an empty preface pushes nothing: `length > 0` as true or `>= 0` is equivalent.
    if (judged !== undefined && judged.preface.length > 0) drafts.push(...judged.preface.splice(0));
    if (record === undefined && call.started !== undefined) {
      // A `tool.started` of a journal written before action transactions: never re-run.
      const at = context.deps.clock.now();
      const why = "the call was cut by a crash after it started; the effect may or may not have happened; not retried";
      drafts.push({
        type: "tool.completed",
        at,
        causationId: call.started.actionId,
        data: {
          turnId,
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          actionId: call.started.actionId,
          attemptId: call.started.attemptId,
          result: errorEnvelope("TOOL_INTERRUPTED", why, at, context.deps.clock),
        },
      });
      continue;
    }
    if (record === undefined) {
      // A cancelled run admits nothing new: the call is answered, with no action that would never run.
      if (decision.kind === "start" && !context.signal?.aborted) {
        const admitted = await admitProposed(context, {
          state,
          batch,
          turnId,
          call: calls[call.index]!,
          accepted: { ...decision, revision: decision.revision },
          blockers,
        });
        drafts.push(...admitted.drafts);
        if (admitted.item !== undefined) items.push(admitted.item);
        continue;
      }
      const refusal = decision.kind === "reject" ? decision : CANCELLED_BEFORE_ADMISSION;
      drafts.push(rejectedCall(context, turnId, call, refusal.code, refusal.message));
      continue;
    }
    if (decision.kind === "reject") {
      escalation ??= {
        actionId: record.actionId,
        reason: `action ${record.actionId} was journaled for ${record.toolName}, which this harness cannot run (${decision.code})`,
      };
      continue;
    }
    // Proposed by another writer and never authorized: decided below, unless held (then decided when it can run).
    const undecided = record.status.state === "proposed" || record.status.state === "validated";
    if ((record.status.state === "authorized" || undecided) && !context.signal?.aborted) {
      // Held behind an earlier call parked for approval that it conflicts with: it waits too (proposal order). With the
      // signal aborted no parked call is left to block it (settleParked refuses them, pushing no blocker).
      const access = accessOfCall(decision.tool, decision.value);
      if (isBlocked(blockers, access)) {
        blockers.push(access);
        continue;
      }
    }
    const engine = context.deps.policy;
    const ask = undecided ? toolAsks(decision.tool, decision.value) : ({ kind: "no" } as const);
    let authorization: Authorization | undefined;
    if ((engine !== undefined || ask.kind !== "no") && undecided && !context.signal?.aborted) {
      // Proposed by another writer, never authorized: decided now, like any call (it cannot be parked: it exists already).
      const decided = await decideCall(context, state, engine ?? NO_POLICY_ENGINE, {
        tool: decision.tool,
        revision: decision.revision,
        input: record.input,
        value: decision.value,
        batch,
      });
      const verdict = { ...decided, decision: stricterDecision(decided.decision, ask) };
      if (verdict.decision.effect !== "allow") {
        const why = verdict.decision.effect === "deny" ? "" : " (it needs an approval, and an action another writer proposed cannot be parked)";
        batch.refuse(record.actionId, "POLICY_DENIED", `${deniedMessage(record.toolName, verdict.decision)}${why}`);
        drafts.push(...batch.drain());
        continue;
      }
      authorization = authorizationOf(verdict);
      takeGrant(batch, verdict.delegation);
    }
    const settlement = await batch.recover(record, decision.tool, decision.value, authorization);
    drafts.push(...batch.drain());
    logRecovery(context, record, settlement);
    if (settlement.kind === "retry") items.push(settlement.item);
    if (settlement.kind === "escalate") escalation = alsoEscalated(escalation, settlement);
  }
  // A reconciler's result is bounded like a handler's.
  return { drafts: await boundResults(context, drafts), items, escalation };
}

const CANCELLED_BEFORE_ADMISSION = { code: "CANCELLED", message: "the run was cancelled before this call was admitted; it did not run" } as const;

function logRecovery(context: RunContext, record: ActionRecord, settlement: Settlement): void {
  context.logger.warn(
    { toolName: record.toolName, actionId: record.actionId, state: record.status.state, next: settlement.kind },
    "recovered an action a stopped process left",
  );
}
