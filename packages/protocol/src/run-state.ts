import { YokeError } from "./errors.js";
import type { JournalEvent, YokeEvent, EventData } from "./events.js";
import { parseYokeEvent } from "./events.js";
import { toolCallsOf, withParsedArguments } from "./model.js";
import { isRefusedResponse } from "./refused-response.js";
import { addUsage } from "./provider.js";
import { applyToolRevisionEvent } from "./run-state-tools.js";
import { invalid } from "./fold-invalid.js";
import { withCallInput } from "./call-input.js";
import type { MutableRunState, RunState } from "./run-state-types.js";
import { ToolCallFold, pushMessage } from "./run-state-calls.js";
import { applyDelegationEvent, isDelegationEvent } from "./run-state-delegation.js";

/**
 * Folds events into run state incrementally. `reduceRun(events)` is the pure form;
 * the accumulator lets a long-lived loop apply one transition at a time in O(1) amortized
 * per event instead of refolding the history.
 */
export class RunStateAccumulator {
  #state: MutableRunState | undefined;
  #calls = new ToolCallFold();

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
    copy.#calls = this.#calls.fork();
    if (this.#state) {
      copy.#state = {
        ...this.#state,
        messages: this.#state.messages.slice(),
        messageSeqs: this.#state.messageSeqs.slice(),
        pendingToolCalls: this.#state.pendingToolCalls.slice(),
        actions: this.#state.actions.slice(),
      };
    }
    return copy;
  }

  #applyTransition(state: MutableRunState, event: YokeEvent): void {
    // The delegation's counts are kept beside the transitions below, never instead of them.
    if (isDelegationEvent(event)) applyDelegationEvent(state, event);
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
          this.#calls.reset();
          state.actions = [];
        } else {
          state.phase = "responded";
        }
        return;
      }
      case "tool.started":
      case "tool.excess_rejected":
      case "tool.rejected":
      case "tool.completed":
      case "action.proposed":
      case "action.admitted":
      case "action.approval_requested":
      case "approval.granted":
      case "approval.denied":
      case "approval.voided":
      case "action.authorized":
      case "action.validated":
      case "action.uncertain":
      case "action.leased":
      case "action.executing":
      case "action.committed":
      case "action.failed":
      case "action.reconciled":
      case "action.compensating":
      case "action.compensation_failed":
      case "action.compensated":
        this.#calls.apply(state, event);
        return;
      case "completion.checked":
        if (state.phase !== "responded") throw invalid(event, `completion.checked in phase ${state.phase}`);
        return;
      case "input.added":
        if (state.phase !== "responded" && state.phase !== "ready") throw invalid(event, `input.added in phase ${state.phase}`);
        pushMessage(state, { role: "user", content: event.data.content }, event.seq);
        state.phase = "ready";
        state.waiting = undefined;
        return;
      case "release.changed":
      case "release.migrated":
        if (state.phase === "finished") throw invalid(event, `${event.type} after the run finished`);
        state.release = event.data.to;
        return;
      case "settings.changed":
        if (state.phase === "finished") throw invalid(event, "settings.changed after the run finished");
        state.settings = event.data.settings;
        return;
      case "run.delegated":
      case "budget.opened":
      case "budget.reserved":
      case "budget.settled":
      case "loop.detected":
      case "interrupt.requested":
      case "interrupt.landed":
      case "session.appended":
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
    settings: data.settings,
    continues: data.continues,
    release: data.release,
    outcome: undefined,
    length: 0,
    headHash: event.hash,
  };
}
