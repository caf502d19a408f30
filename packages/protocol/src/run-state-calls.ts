import { transitionAction, type ActionTransitionInput } from "./actions.js";
import { YokeError } from "./errors.js";
import type { YokeEvent, YokeEventOf } from "./events.js";
import type { Message, ToolResultPart } from "./model.js";
import { checkPinnedRevision, dropExcessCalls } from "./run-state-tools.js";
import { applyApprovalEvent } from "./run-state-approvals.js";
import { invalid } from "./fold-invalid.js";
import { pendingCallIndex } from "./call-input.js";
import type { ActionRecord, MutableRunState } from "./run-state-types.js";
import { authorityAfter } from "./run-state-authority.js";

/** The events about the tool calls of a response: their actions, approvals, attempts and results. */
export type ToolCallEventType =
  | "tool.started"
  | "tool.excess_rejected"
  | "tool.rejected"
  | "tool.completed"
  | "action.proposed"
  | "action.admitted"
  | "action.approval_requested"
  | "approval.granted"
  | "approval.denied"
  | "approval.voided"
  | "action.authorized"
  | "action.validated"
  | "action.uncertain"
  | "action.leased"
  | "action.executing"
  | "action.committed"
  | "action.failed"
  | "action.reconciled"
  | "action.compensating"
  | "action.compensation_failed"
  | "action.compensated";

/**
 * The part of the run-state fold that follows a response's tool calls: each call's action
 * through the action state machine, its approvals, and its result, until the last result of
 * the response becomes one tool message. It holds the results collected so far for the
 * response being answered (`reset` when a new response proposes calls).
 */
export class ToolCallFold {
  #results: { index: number; part: ToolResultPart }[] = [];

  /** A new response proposed calls: none of their results is in yet. */
  reset(): void {
    this.#results = [];
  }

  /** An independent copy at the same point (for `RunStateAccumulator.fork`). */
  fork(): ToolCallFold {
    const copy = new ToolCallFold();
    copy.#results = this.#results.slice();
    return copy;
  }

  apply(state: MutableRunState, event: YokeEventOf<ToolCallEventType>): void {
    switch (event.type) {
      case "tool.started": {
        const index = this.#pendingIndex(state, event, event.data.toolCallId, event.data.actionId);
        const call = state.pendingToolCalls[index]!;
        state.pendingToolCalls[index] = {
          ...call,
          started: { actionId: event.data.actionId, attemptId: event.data.attemptId, attempt: event.data.attempt },
        };
        return;
      }
      case "tool.excess_rejected":
        this.#resolve(state, dropExcessCalls(state, event), event.data.result, event.seq);
        return;
      case "tool.rejected":
      case "tool.completed": {
        const actionId = event.type === "tool.completed" ? event.data.actionId : undefined;
        const index = this.#pendingIndex(state, event, event.data.toolCallId, actionId);
        this.#resolve(state, index, event.data.result, event.seq);
        return;
      }
      case "action.proposed": {
        const index = this.#pendingIndex(state, event, event.data.toolCallId, undefined);
        const call = state.pendingToolCalls[index]!;
        state.pendingToolCalls[index] = { ...call, actionId: event.data.actionId };
        this.#moveAction(state, event, { type: "action.proposed" });
        return;
      }
      case "action.admitted": {
        // proposed → validated → authorized → leased (attempt 1) → executing, each checked.
        const index = this.#pendingIndex(state, event, event.data.toolCallId, undefined);
        const record = this.#moveAction(state, event, { type: "action.admitted" }, { attemptId: event.data.attemptId, ...authorityAfter(undefined, event) });
        const call = state.pendingToolCalls[index]!;
        state.pendingToolCalls[index] = {
          ...call,
          actionId: record.actionId,
          started: { actionId: record.actionId, attemptId: event.data.attemptId, attempt: record.status.attempt },
        };
        return;
      }
      case "action.approval_requested": {
        const index = this.#pendingIndex(state, event, event.data.toolCallId, undefined);
        const call = state.pendingToolCalls[index]!;
        state.pendingToolCalls[index] = { ...call, actionId: event.data.actionId };
        this.#moveAction(state, event, { type: "action.approval_requested" }, authorityAfter(undefined, event));
        applyApprovalEvent(state, event);
        return;
      }
      case "approval.granted":
      case "approval.denied":
      case "approval.voided":
        if (state.phase !== "tools_pending") throw invalid(event, `${event.type} in phase ${state.phase}`);
        applyApprovalEvent(state, event);
        return;
      case "action.authorized": {
        const { approvalId } = event.data;
        if (approvalId !== undefined && state.approvals.get(approvalId)?.status !== "granted") {
          throw invalid(event, `action.authorized names approval ${approvalId}, which is not granted`);
        }
        this.#moveAction(state, event, { type: event.type }, authorityAfter(this.#record(state, event.data.actionId), event));
        return;
      }
      case "action.validated":
      case "action.uncertain":
        this.#moveAction(state, event, { type: event.type });
        return;
      case "action.leased":
        this.#moveAction(
          state,
          event,
          { type: event.type, attempt: event.data.attempt },
          { attemptId: event.data.attemptId, ...authorityAfter(this.#record(state, event.data.actionId), event) },
        );
        return;
      case "action.executing": {
        const record = this.#moveAction(state, event, { type: event.type }, authorityAfter(this.#record(state, event.data.actionId), event));
        const index = this.#actionCallIndex(state, event, record.actionId);
        const call = state.pendingToolCalls[index]!;
        state.pendingToolCalls[index] = {
          ...call,
          started: { actionId: record.actionId, attemptId: event.data.attemptId, attempt: record.status.attempt },
        };
        return;
      }
      case "action.committed": {
        // Equivalent mutant (`pnpm mutate`: the condition as `false`, here and at action.reconciled):
        // `{ receipt: undefined }` and `{}` give the same record, created with `receipt: undefined`
        // and never given a receipt before it commits.
        const receipt = event.data.receipt === undefined ? {} : { receipt: event.data.receipt };
        const record = this.#moveAction(state, event, { type: event.type }, { ...receipt, committedSeq: event.seq });
        this.#resolve(state, this.#actionCallIndex(state, event, record.actionId), event.data.result, event.seq);
        return;
      }
      case "action.failed": {
        const record = this.#moveAction(state, event, { type: event.type, retryable: event.data.retryable });
        if (!event.data.retrying) this.#resolve(state, this.#actionCallIndex(state, event, record.actionId), event.data.result, event.seq);
        return;
      }
      case "action.reconciled": {
        const { verdict, result } = event.data;
        if (verdict === "applied" && result === undefined) throw invalid(event, "an applied reconciliation must carry the result");
        const receipt = event.data.receipt === undefined ? {} : { receipt: event.data.receipt };
        const applied = verdict === "applied" ? { ...receipt, committedSeq: event.seq } : {};
        const record = this.#moveAction(state, event, { type: event.type, verdict }, applied);
        if (verdict === "applied") this.#resolve(state, this.#actionCallIndex(state, event, record.actionId), result!, event.seq);
        return;
      }
      case "action.compensating":
      case "action.compensation_failed":
        this.#moveAction(state, event, { type: event.type }, {}, true);
        return;
      case "action.compensated": {
        const record = this.#moveAction(state, event, { type: event.type }, {}, true);
        const text = `[runtime] the effect of ${record.toolName} (call ${record.toolCallId}) was undone by its compensation.`;
        pushMessage(state, { role: "user", content: [{ type: "text", text }] }, event.seq);
        return;
      }
    }
  }

  /** Moves one action of the batch through the state machine; an illegal transition is refused. */
  #moveAction(
    state: MutableRunState,
    event: YokeEvent & { data: { actionId: string } },
    input: ActionTransitionInput,
    changes: Partial<ActionRecord> = {},
    afterResults = false,
  ): ActionRecord {
    if (state.phase !== "tools_pending" && !(afterResults && state.phase === "ready")) {
      throw invalid(event, `${event.type} in phase ${state.phase}`);
    }
    const position = state.actions.findIndex((action) => action.actionId === event.data.actionId);
    // Equivalent mutant (`pnpm mutate`: `position < 0` as `false`): `state.actions[-1]` is undefined too.
    const current = position < 0 ? undefined : state.actions[position]!;
    const result = transitionAction(current?.status, input);
    if (!result.ok) {
      throw new YokeError("ACTION_TRANSITION_ILLEGAL", `event ${event.seq} (${event.type}) for action ${event.data.actionId}: ${result.reason}`, {
        details: { seq: event.seq, type: event.type, actionId: event.data.actionId },
      });
    }
    if (current === undefined) {
      // Unreachable, kept for the type narrowing below: transitionAction refuses every other event
      // for no action (the transition table test), so this message's mutant (`pnpm mutate`) survives.
      if (event.type !== "action.proposed" && event.type !== "action.admitted" && event.type !== "action.approval_requested") {
        throw invalid(event, `unknown action ${event.data.actionId}`);
      }
      checkPinnedRevision(state, event);
      const record: ActionRecord = {
        actionId: event.data.actionId,
        turnId: event.data.turnId,
        toolCallId: event.data.toolCallId,
        toolName: event.data.toolName,
        // withCallInput gave back an input journaled as `inputFromCall` before this fold.
        input: event.data.input!,
        sideEffect: event.data.sideEffect,
        ...(event.data.toolRevision === undefined ? {} : { toolRevision: event.data.toolRevision }),
        status: result.status,
        attemptId: undefined,
        receipt: undefined,
        committedSeq: undefined,
        ...changes,
      };
      state.actions.push(record);
      return record;
    }
    const record: ActionRecord = { ...current, ...changes, status: result.status };
    state.actions[position] = record;
    return record;
  }

  #record(state: MutableRunState, actionId: string): ActionRecord | undefined {
    return state.actions.find((action) => action.actionId === actionId);
  }

  #actionCallIndex(state: MutableRunState, event: YokeEvent, actionId: string): number {
    const index = state.pendingToolCalls.findIndex((call) => call.actionId === actionId);
    if (index < 0) throw invalid(event, `no pending tool call for action ${actionId}`);
    return index;
  }

  /** Gives a pending call its result; the last result of a response becomes one tool message. */
  #resolve(state: MutableRunState, index: number, result: ToolResultPart["result"], seq: number): void {
    const [call] = state.pendingToolCalls.splice(index, 1);
    this.#results.push({
      index: call!.index,
      part: { type: "tool-result", toolCallId: call!.toolCallId, toolName: call!.toolName, result },
    });
    if (state.pendingToolCalls.length === 0) {
      const results = this.#results.sort((a, b) => a.index - b.index).map((entry) => entry.part);
      pushMessage(state, { role: "tool", content: results }, seq);
      this.#results = [];
      state.phase = "ready";
    }
  }

  /**
   * Finds the pending call an event is about. Ids may repeat within a response, so a call
   * already started under `actionId` wins; otherwise the first not-yet-started call with the
   * id (events about one response arrive in proposal order); otherwise the first with the id.
   */
  #pendingIndex(state: MutableRunState, event: YokeEvent, toolCallId: string, actionId: string | undefined): number {
    if (state.phase !== "tools_pending") throw invalid(event, `${event.type} in phase ${state.phase}`);
    const index = pendingCallIndex(state.pendingToolCalls, toolCallId, actionId);
    if (index < 0) throw invalid(event, `no pending tool call ${toolCallId}`);
    return index;
  }
}

/** Appends a message to the transcript, with the sequence number of the event that added it. */
export function pushMessage(state: MutableRunState, message: Message, seq: number): void {
  state.messages.push(message);
  state.messageSeqs.push(seq);
}
