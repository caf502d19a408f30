import { transitionAction, type ActionTransitionInput } from "./actions.js";
import { YokeError } from "./errors.js";
import type { JournalEvent, YokeEvent, EventData } from "./events.js";
import { parseYokeEvent } from "./events.js";
import type { Message, ToolResultPart } from "./model.js";
import { toolCallsOf, withParsedArguments } from "./model.js";
import { isRefusedResponse } from "./refused-response.js";
import { addUsage } from "./provider.js";
import { applyToolRevisionEvent, checkPinnedRevision, dropExcessCalls } from "./run-state-tools.js";
import { applyApprovalEvent } from "./run-state-approvals.js";
import { invalid } from "./fold-invalid.js";
import { pendingCallIndex, withCallInput } from "./call-input.js";
import type { ActionRecord, MutableRunState, RunState } from "./run-state-types.js";
import { authorityAfter } from "./run-state-authority.js";

/**
 * Folds events into run state incrementally. `reduceRun(events)` is the pure form;
 * the accumulator lets a long-lived loop apply one transition at a time in O(1) amortized
 * per event instead of refolding the history.
 */
export class RunStateAccumulator {
  #state: MutableRunState | undefined;
  #results: { index: number; part: ToolResultPart }[] = [];

  /**
   * Applies one stored event; throws EVENT_INVALID if it does not follow from the state.
   * Returns the event as validated (`parseYokeEvent`) and read (an action's `inputFromCall`
   * given back as its `input`, `withCallInput`): typed, so a reader that folds need not parse
   * it again, and sees every action's input.
   */
  apply(event: JournalEvent): YokeEvent {
    const parsed = parseYokeEvent(event);
    const expected = this.#state?.length ?? 0;
    if (event.seq !== expected) {
      throw invalid(event, `expected sequence ${expected}`);
    }
    if (parsed.type === "run.started") {
      if (this.#state) throw invalid(event, "run.started after the start");
      this.#state = initialState(event, parsed.data);
    } else {
      if (!this.#state) throw invalid(event, "the first event must be run.started");
      if (this.#state.phase === "finished") throw invalid(event, "event after run.completed");
      const folded = withCallInput(this.#state, parsed);
      this.#applyTransition(this.#state, folded);
      this.#state.length = event.seq + 1;
      this.#state.headHash = event.hash;
      return folded;
    }
    this.#state.length = event.seq + 1;
    this.#state.headHash = event.hash;
    return parsed;
  }

  /** How many events are folded: 0 before `run.started`. */
  get length(): number {
    return this.#state?.length ?? 0;
  }

  /**
   * Records the stored head after events were folded ahead of their append: a writer may
   * apply the events it is about to append (with a placeholder `hash`) to validate them and
   * build on their state, then acknowledge the head the journal returned. Throws INTERNAL
   * when `head.length` is not the folded length.
   *
   * @example
   * ```ts
   * accumulator.apply({ ...draftAsEvent, hash: GENESIS_HASH }); // validated before the write
   * const result = await journal.append(scope, seq, [draft]);
   * accumulator.acknowledge({ length: result.lastSeq + 1, hash: result.headHash });
   * ```
   */
  acknowledge(head: { readonly length: number; readonly hash: string }): void {
    if (!this.#state || head.length !== this.#state.length) {
      throw new YokeError("INTERNAL", `acknowledged head ${head.length} is not the folded length ${this.#state?.length ?? 0}`, {
        details: { length: head.length, folded: this.#state?.length ?? 0 },
      });
    }
    this.#state.headHash = head.hash;
  }

  /** The state so far. The returned object is a copy the accumulator will not change. */
  snapshot(): RunState {
    if (!this.#state) throw new YokeError("RUN_NOT_FOUND", "no events folded yet");
    return {
      ...this.#state,
      messages: this.#state.messages.slice(),
      messageSeqs: this.#state.messageSeqs.slice(),
      pendingToolCalls: this.#state.pendingToolCalls.slice(),
      actions: this.#state.actions.slice(),
    };
  }

  /** The live state, for readers that will not keep it across `apply` calls. */
  peek(): RunState {
    if (!this.#state) throw new YokeError("RUN_NOT_FOUND", "no events folded yet");
    return this.#state;
  }

  /**
   * An independent accumulator at the same point, for previewing the state events would
   * lead to before they are written. Costs one shallow copy of the transcript.
   *
   * @example
   * ```ts
   * const preview = accumulator.fork();
   * preview.apply(provisionalEvent); // `accumulator` is unchanged
   * ```
   */
  fork(): RunStateAccumulator {
    const copy = new RunStateAccumulator();
    if (this.#state) {
      copy.#state = {
        ...this.#state,
        messages: this.#state.messages.slice(),
        messageSeqs: this.#state.messageSeqs.slice(),
        pendingToolCalls: this.#state.pendingToolCalls.slice(),
        actions: this.#state.actions.slice(),
      };
    }
    copy.#results = this.#results.slice();
    return copy;
  }

  #applyTransition(state: MutableRunState, event: YokeEvent): void {
    switch (event.type) {
      case "turn.started":
        if (state.phase !== "ready") throw invalid(event, `turn.started in phase ${state.phase}`);
        state.turns = event.data.index;
        state.currentTurnId = event.data.turnId;
        state.offeredTools = event.data.offered;
        return;
      case "tool.drifted":
      case "tool.readmitted":
        applyToolRevisionEvent(state, event);
        return;
      case "model.requested":
        if (state.phase !== "ready" && state.phase !== "responded") throw invalid(event, `model.requested in phase ${state.phase}`);
        if (state.currentTurnId !== event.data.turnId) throw invalid(event, "model.requested for another turn");
        state.phase = "awaiting_response";
        return;
      case "context.compiled":
        if (state.phase !== "ready" && state.phase !== "responded") throw invalid(event, `context.compiled in phase ${state.phase}`);
        if (state.currentTurnId !== event.data.turnId) throw invalid(event, "context.compiled for another turn");
        return;
      case "model.failed":
        if (state.phase !== "awaiting_response") throw invalid(event, `model.failed in phase ${state.phase}`);
        if (state.currentTurnId !== event.data.turnId) throw invalid(event, "model.failed for another turn");
        return;
      case "model.responded": {
        if (state.phase !== "awaiting_response") throw invalid(event, `model.responded in phase ${state.phase}`);
        const response = event.data.argumentsFromRaw === true ? withParsedArguments(event.data.response) : event.data.response;
        state.lastResponse = response;
        state.usage = addUsage(state.usage, response.usage);
        if (response.content.length > 0) pushMessage(state, { role: "assistant", content: response.content }, event.seq);
        // A refused response runs nothing, even one whose adapter left its calls executable.
        const calls = isRefusedResponse(response) ? [] : toolCallsOf(response);
        if (calls.length > 0) {
          state.phase = "tools_pending";
          state.pendingToolCalls = calls.map((call, index) => ({
            index,
            toolCallId: call.toolCallId,
            toolName: call.toolName,
            arguments: call.arguments,
          }));
          this.#results = [];
          state.actions = [];
        } else {
          state.phase = "responded";
        }
        return;
      }
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
      case "completion.checked":
        if (state.phase !== "responded") throw invalid(event, `completion.checked in phase ${state.phase}`);
        return;
      case "input.added":
        if (state.phase !== "responded" && state.phase !== "ready") throw invalid(event, `input.added in phase ${state.phase}`);
        pushMessage(state, { role: "user", content: event.data.content }, event.seq);
        state.phase = "ready";
        state.waiting = undefined;
        return;
      case "budget.opened":
      case "budget.reserved":
      case "budget.settled":
      case "loop.detected":
      case "interrupt.requested":
      case "interrupt.landed":
        // Budgets fold in @yoke/budget; a loop detection changes nothing until its steering input or escalation.
        return;
      case "verifier.started":
      case "verifier.finished":
        if (state.phase !== "responded") throw invalid(event, `${event.type} in phase ${state.phase}`);
        return;
      case "run.waiting": {
        const { kind, reason, turnId, actionId } = event.data;
        state.waiting = { kind, reason, ...(turnId === undefined ? {} : { turnId }), ...(actionId === undefined ? {} : { actionId }) };
        return;
      }
      case "run.failed":
        // Explains why the run stopped; the run stays where it was, for `resume` to continue.
        if (event.data.turnId !== undefined && event.data.turnId !== state.currentTurnId) throw invalid(event, "run.failed for another turn");
        return;
      case "run.completed":
        state.waiting = undefined;
        state.outcome = event.data.outcome;
        if (event.data.output !== undefined) state.output = event.data.output;
        state.phase = "finished";
        return;
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

/** Run state as a pure fold over a run's events. */
export function reduceRun(events: Iterable<JournalEvent>): RunState {
  const accumulator = new RunStateAccumulator();
  for (const event of events) accumulator.apply(event);
  return accumulator.snapshot();
}

function initialState(event: JournalEvent, data: EventData<"run.started">): MutableRunState {
  return {
    tenantId: event.tenantId,
    runId: event.runId,
    sessionId: data.sessionId,
    task: data.task,
    systemPrompt: data.systemPrompt,
    tools: data.tools,
    toolSnapshot: data.toolSnapshot,
    principal: data.principal ?? { id: event.tenantId, authenticated: false, scopes: [] },
    approvals: new Map(),
    pinnedTools: new Map((data.toolSnapshot?.revisions ?? []).map((revision) => [revision.name, revision])),
    driftedTools: new Map(),
    offeredTools: undefined,
    maxTurns: data.limits.maxTurns,
    maxToolCallsPerTurn: data.limits.maxToolCallsPerTurn,
    maxEventOutputBytes: data.limits.maxEventOutputBytes,
    maxToolInputBytes: data.limits.maxToolInputBytes,
    phase: "ready",
    turns: 0,
    currentTurnId: undefined,
    messages: [{ role: "user", content: [{ type: "text", text: data.task }] }],
    messageSeqs: [event.seq],
    lastResponse: undefined,
    pendingToolCalls: [],
    actions: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    waiting: undefined,
    parent: data.parent,
    outcome: undefined,
    length: 0,
    headHash: event.hash,
  };
}

function pushMessage(state: MutableRunState, message: Message, seq: number): void {
  state.messages.push(message);
  state.messageSeqs.push(seq);
}
