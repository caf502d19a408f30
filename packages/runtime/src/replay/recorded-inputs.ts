import {
  YokeError,
  withParsedArguments,
  type Clock,
  type JournalEvent,
  type ModelResponse,
  type ProviderAdapterV1,
  type ToolResultEnvelope,
  type JsonValue,
  type YokeErrorCode,
} from "@yoke/protocol";
import { STOPPED_AFTER_DISPATCH, accessOf, conflictPredecessors, type AttemptOutcome, type DispatchItem } from "@yoke/scheduler";
import type { AnyTool } from "../define-tool.js";
import type { ToolExecutor } from "../tool-executor.js";
import type { ReplayTape } from "./replay-tape.js";
import { INTERRUPT_INBOX_SUFFIX } from "../interrupts.js";
import { escalationReason } from "./escalation-reason.js";
import { SPAWN_SUBAGENT, childReservationIdOf, childRunIdOf } from "../subagents/subagent-options.js";

/**
 * A clock at the recorded time of the event the active stream appends next (the last recorded
 * time past its end), except while a model answer is awaited: until the recorded answer is
 * served the time is the last appended event's (the call has not taken its time yet), so a
 * latency measured across the call is the recorded one.
 */
export function recordedClock(tape: ReplayTape): Clock {
  return {
    specificationVersion: "v1",
    now() {
      if (tape.present !== undefined) return Math.min(tape.present, tape.ceiling);
      const events = tape.events(tape.active);
      const length = tape.lengthOf(tape.active);
      const next = events[length];
      const awaited = (next?.type === "model.responded" || next?.type === "model.failed") && tape.answered !== `${tape.active}:${length}`;
      if (!awaited) return Math.min((next ?? events[events.length - 1])?.at ?? 0, tape.ceiling);
      // The call's answer says when it was asked: its time less its latency (the process that
      // asked may have resumed the run long after its last append).
      const answered = callAnswer(events, length);
      const started = answered === undefined ? events[length - 1]?.at : answered.at - (answered.data as { latencyMs: number }).latencyMs;
      return Math.min(started ?? 0, tape.ceiling);
    },
  };
}

/** The `model.responded` that answers the call whose first recorded answer is at `from` (after its failed attempts), if the record holds one. */
function callAnswer(events: readonly JournalEvent[], from: number): JournalEvent | undefined {
  const turnId = (events[from]?.data as { turnId?: string } | undefined)?.turnId;
  let attempt = 0;
  for (const event of events.slice(from)) {
    const data = event.data as { turnId?: string; retrying?: boolean; attempt?: number };
    if (event.type === "model.responded") return data.turnId === turnId ? event : undefined;
    if (event.type === "model.requested" || (event.type === "model.failed" && data.retrying !== true)) return undefined;
    // Attempts of one call count up: attempt 1 again is another process's call.
    if (event.type === "model.failed") {
      if ((data.attempt ?? 0) <= attempt) return undefined;
      attempt = data.attempt ?? 0;
    }
  }
  return undefined;
}

/**
 * `provider`'s identity and capabilities (the request compiles as it did), answering from the
 * record: the recorded `model.responded` (or `model.failed`, thrown again) the active stream
 * holds next. Where the record holds none the recorded process stopped: replay stops too.
 */
export function recordedProvider(provider: ProviderAdapterV1, tape: ReplayTape): ProviderAdapterV1 {
  const admit = provider.admit;
  // Attempts of one request in one process: a recorded failure of another attempt number was
  // journaled by another process (the recorded one died and its successor asked again).
  let asked = { key: "", attempts: 0 };
  return {
    specificationVersion: "v1",
    provider: provider.provider,
    modelId: provider.modelId,
    capabilities: provider.capabilities,
    ...(admit === undefined ? {} : { admit: (request) => admit.call(provider, request) }),
    async generate(_request, options) {
      tape.crashIfDoomed();
      const length = tape.lengthOf(tape.active);
      const cut = cancelledBy(tape, tape.active, length);
      if (cut !== undefined && options?.signal !== undefined) {
        tape.answered = `${tape.active}:${length}`;
        return cancelInFlight(tape, cut, options.signal);
      }
      const requested = tape.events(tape.active).findLastIndex((event, seq) => seq < length && event.type === "model.requested");
      const key = `${tape.process}:${tape.active}:${requested}`;
      asked = asked.key === key ? { key, attempts: asked.attempts + 1 } : { key, attempts: 1 };
      const next = tape.next(tape.active, length);
      const answered = `${tape.active}:${length}`;
      // The journal keeps a call's argument text once: the response the provider gave had both.
      if (next?.type === "model.responded") {
        tape.answered = answered;
        // A person's input the record lands with this answer was read by the inbox watch while
        // the call was in flight: delivered now, and the watch's poll made to happen.
        if (landsInputWith(tape.events(tape.active), length)) {
          await tape.deliverInterrupts({ tenantId: tape.recorded.scope.tenantId, runId: `${tape.active}${INTERRUPT_INBOX_SUFFIX}` });
          tape.timers.fireInboxWatch();
        }
        return withParsedArguments((next.data as unknown as { response: ModelResponse }).response);
      }
      if (next?.type === "model.failed" && (next.data as { attempt: number }).attempt === asked.attempts) {
        tape.answered = answered;
        const failed = next.data as { code: string; message: string; requestId?: string };
        throw new YokeError(failed.code as YokeErrorCode, failed.message, { details: failed.requestId === undefined ? {} : { requestId: failed.requestId } });
      }
      if (tape.cancelIfRecorded()) throw tape.caller.signal.reason;
      return tape.crash(`no recorded model answer at event ${length} of ${tape.active}`);
    },
  };
}

/** Whether the answer at `length` lands an interrupt's input in its own transaction (before the next turn starts, a call runs or the run waits). */
function landsInputWith(events: readonly JournalEvent[], length: number): boolean {
  for (const event of events.slice(length + 1)) {
    if (event.type === "interrupt.landed") return (event.data as { kind: string }).kind === "input";
    // Read after the call, an input lands with the next turn's start instead.
    if (event.type === "turn.started" || event.type === "model.requested" || event.type === "run.waiting" || event.type === "action.executing") return false;
  }
  return false;
}

/** The interrupt whose cancel cut the model call the record answers at `length` (its `model.failed` CANCELLED is followed by the cancel's landing). */
function cancelledBy(tape: ReplayTape, runId: string, length: number): { interruptId: string; inboxSeq: number } | undefined {
  const events = tape.events(runId);
  const failed = events[length];
  if (failed?.type !== "model.failed" || (failed.data as { code: string }).code !== "CANCELLED") return undefined;
  // The call's settlement may come between the failure and the landing (budget.settled).
  const landed = events.slice(length + 1).find((event) => event.type !== "budget.settled");
  if (landed?.type !== "interrupt.landed" || (landed.data as { kind: string }).kind !== "cancel") return undefined;
  return landed.data as { interruptId: string; inboxSeq: number };
}

/**
 * The recorded cancel reaches the call in flight as it did (another process's cancel, read
 * by the inbox watch): delivered to the inbox, then the call's controller aborted with it.
 */
async function cancelInFlight(tape: ReplayTape, cut: { interruptId: string; inboxSeq: number }, signal: AbortSignal): Promise<never> {
  const runId = tape.active;
  const inbox = `${runId}${INTERRUPT_INBOX_SUFFIX}`;
  const requested = tape.events(inbox)[cut.inboxSeq];
  tape.midCall = true;
  try {
    await tape.deliverInterrupts({ tenantId: tape.recorded.scope.tenantId, runId: inbox });
  } finally {
    tape.midCall = false;
  }
  const request = { ...(requested?.data as { interruptId: string; kind: "cancel"; text: string }), inboxSeq: cut.inboxSeq };
  for (const live of tape.live) for (const controller of live.get(runId) ?? []) if (!controller.signal.aborted) controller.abort(request);
  if (!signal.aborted) return tape.crash(`the recorded cancel ${cut.interruptId} reached no call in flight`);
  throw signal.reason;
}

/**
 * Serves each attempt its recorded outcome; never runs a tool. A subagent's spawn is the
 * runtime's own code, not an effect: it runs through `own` and its child run is replayed
 * (and compared) like its parent.
 */
export function recordedExecutor(tape: ReplayTape, own: ToolExecutor): ToolExecutor {
  return {
    async executeAll(items: readonly DispatchItem[], signal, options): Promise<AttemptOutcome[]> {
      tape.crashIfDoomed();
      const spawns = items.filter((item) => item.tool.name === SPAWN_SUBAGENT);
      // A spawn whose recorded process died while its child ran: the child goes as far as it
      // can without an answer from outside (what it journaled before its first call), then stops.
      // A child whose budget names another attempt's reservation was started by a later process: this attempt stops at once.
      for (const item of spawns) {
        if (!stoppedAfterDispatch(tape.events(tape.active), item.attemptId)) continue;
        const child = childRunIdOf(item.actionId);
        const opened = tape.events(child).find((event) => event.type === "budget.opened");
        const reservation = (opened?.data as { parent?: { reservationId?: string } } | undefined)?.parent?.reservationId;
        if (tape.events(child).length === 0 || (reservation !== undefined && reservation !== childReservationIdOf(item.attemptId))) {
          return tape.crash("a recorded spawn never started its child");
        }
        tape.doomed.add(child);
      }
      const ran = spawns.length === 0 ? [] : await own.executeAll(spawns, signal, options);
      const stream = tape.active;
      const found = items.map((item) => (item.tool.name === SPAWN_SUBAGENT ? undefined : recordedOutcome(tape.events(stream), item.attemptId)));
      // Which recorded outcomes this round settled, from the scheduler's rule and the record's
      // order: a call that conflicts with an earlier one of the batch that did not settle for
      // good (uncertain, a failure it retries, deferred) waits for a later round, unless its
      // deadline passed while it waited (its not-dispatched TOOL_TIMEOUT is this round's; any
      // other not-dispatched failure is the runtime's, e.g. a batch that escalated); and a round settles in
      // dispatch order, so an outcome journaled after a later call's, or after another round's
      // outcome, is a later round's.
      const start = tape.lengthOf(stream);
      const round = new Set(items.map((item) => item.attemptId));
      const recordedEvents = tape.events(stream);
      const laterRound = (index: number): boolean => {
        const seq = found[index]!.seq;
        if (found.some((other, k) => k > index && other !== undefined && other.seq < seq)) return true;
        return recordedEvents.slice(start, seq).some((event) => {
          const attemptId = (event.data as { attemptId?: string }).attemptId;
          return OUTCOME_TYPES.has(event.type) && attemptId !== undefined && !round.has(attemptId) && fromExecutor(event);
        });
      };
      const predecessors = conflictPredecessors(items.map((item) => accessOf(item.tool, item.input)));
      const outcomes: (Recorded | undefined)[] = [];
      const deferredHere = new Set<number>();
      items.forEach((_item, index) => {
        const recorded = found[index];
        const notDispatched =
          recorded?.outcome.kind === "failed" &&
          !recorded.outcome.dispatched &&
          recorded.outcome.result.error?.code === "TOOL_TIMEOUT" &&
          recorded.at >= items[index]!.deadlineAt;
        // Anything journaled after the outcome of a call this round deferred is a later round's too.
        const afterDeferred = recorded !== undefined && [...deferredHere].some((k) => found[k] !== undefined && found[k]!.seq < recorded.seq);
        const waits =
          afterDeferred ||
          (recorded !== undefined && laterRound(index)) ||
          (!notDispatched && predecessors[index]!.some((earlier) => deferredHere.has(earlier) || !settledForGood(outcomes[earlier])));
        if (waits) deferredHere.add(index);
        outcomes.push(waits ? undefined : recorded);
      });
      // An attempt with no outcome waited on a conflicting call that did not settle for good (deferred), unless none did: then the process stopped.
      const unsettled = outcomes.some((outcome) => outcome?.kind === "uncertain" || (outcome?.kind === "failed" && outcome.retrying));
      const missing = items.some((item, index) => outcomes[index] === undefined && item.tool.name !== SPAWN_SUBAGENT);
      if (missing && !unsettled) return tape.crash("no recorded outcome for a dispatched attempt");
      tape.cancelIfRecorded();
      // The batch came back when its first recorded outcome was settled (a reconciliation
      // or compensation in between takes its own recorded time: see recordedTool).
      const arrived = outcomes.flatMap((outcome) => (outcome === undefined ? [] : [outcome.at]));
      if (arrived.length > 0) tape.present = Math.min(...arrived);
      return items.map((item, index) => {
        if (item.tool.name === SPAWN_SUBAGENT) return ran[spawns.indexOf(item)]!;
        return outcomes[index]?.outcome ?? { kind: "deferred" };
      });
    },
  };
}

function stoppedAfterDispatch(events: readonly JournalEvent[], attemptId: string): boolean {
  return events.some(
    (event) =>
      event.type === "action.uncertain" &&
      (event.data as { attemptId?: string; reason?: string }).attemptId === attemptId &&
      (event.data as { reason?: string }).reason === STOPPED_AFTER_DISPATCH,
  );
}

/** Whether no later attempt can follow this served outcome (see the scheduler's own rule). */
function settledForGood(outcome: Recorded | undefined): boolean {
  return outcome !== undefined && (outcome.kind === "committed" || (outcome.kind === "failed" && !outcome.retrying));
}

type Recorded = { kind: AttemptOutcome["kind"]; retrying: boolean; outcome: AttemptOutcome; at: number; seq: number };

/**
 * Whether an outcome event came back from an executor round (not one the runtime settled
 * without dispatching: a retry the budget refused, a call a batch's escalation cancelled).
 */
function fromExecutor(event: JournalEvent): boolean {
  if (event.type !== "action.failed") return true;
  const data = event.data as { dispatched?: boolean; result?: ToolResultEnvelope };
  return data.dispatched === true || data.result?.error?.code === "TOOL_TIMEOUT";
}

/** The events that carry an attempt's outcome. */
const OUTCOME_TYPES = new Set(["action.committed", "action.failed", "action.uncertain"]);

function recordedOutcome(events: readonly JournalEvent[], attemptId: string): Recorded | undefined {
  for (const event of events) {
    const data = event.data as {
      attemptId?: string;
      result?: ToolResultEnvelope;
      receipt?: JsonValue;
      retryable?: boolean;
      retrying?: boolean;
      dispatched?: boolean;
      reason?: string;
    };
    if (data.attemptId !== attemptId) continue;
    if (event.type === "action.committed")
      return { kind: "committed", retrying: false, outcome: { kind: "committed", result: data.result!, receipt: data.receipt }, at: event.at, seq: event.seq };
    if (event.type === "action.failed" && data.dispatched !== undefined && data.result !== undefined) {
      return {
        kind: "failed",
        retrying: data.retrying === true,
        outcome: { kind: "failed", result: data.result, retryable: data.retryable === true, dispatched: data.dispatched },
        at: event.at,
        seq: event.seq,
      };
    }
    // A resume's "stopped after dispatch": no outcome ever came back to the recorded process.
    if (event.type === "action.uncertain" && data.reason === STOPPED_AFTER_DISPATCH) return undefined;
    if (event.type === "action.uncertain")
      return { kind: "uncertain", retrying: false, outcome: { kind: "uncertain", reason: data.reason ?? "" }, at: event.at, seq: event.seq };
  }
  return undefined;
}

/** `tool` whose handlers never run: execute refuses, compensate and reconcile answer as recorded. */
export function recordedTool(tool: AnyTool, tape: ReplayTape): AnyTool {
  // The answer this step journals: the first at or after where the replay journal ends (an
  // action reconciled once in a live batch may be reconciled again by a resume).
  const byAction = (actionId: string, types: readonly string[]) => {
    const from = tape.lengthOf(tape.active);
    return tape
      .events(tape.active)
      .find((event) => event.seq >= from && types.includes(event.type) && (event.data as { actionId?: string }).actionId === actionId);
  };
  const replayed: Record<string, unknown> = {
    ...tool,
    execute: async () => {
      throw new YokeError("REPLAY_UNSUPPORTED", `replay never runs a tool (${tool.name}); its outcome comes from the record`, {
        details: { reason: "tool_called" },
      });
    },
  };
  if (tool.compensate !== undefined) {
    replayed.compensate = async (_input: unknown, context: { readonly actionId: string }) => {
      const ended = byAction(context.actionId, ["action.compensated", "action.compensation_failed"]);
      if (ended === undefined) return tape.crash(`no recorded compensation of ${context.actionId}`);
      tape.present = ended.at;
      if (ended.type === "action.compensation_failed") {
        throw new YokeError("TOOL_COMPENSATION_FAILED", (ended.data as { message: string }).message, {});
      }
    };
  }
  if (tool.reconcile !== undefined) {
    replayed.reconcile = async (actionId: string) => {
      const reconciled = byAction(actionId, ["action.reconciled"]);
      if (reconciled === undefined) return tape.crash(`no recorded reconciliation of ${actionId}`);
      tape.present = reconciled.at;
      const data = reconciled.data as { verdict: string; result?: ToolResultEnvelope; receipt?: JsonValue };
      if (data.verdict === "applied") {
        const text = data.result?.content.find((part) => part.type === "text");
        return {
          status: "applied",
          ...(text?.type === "text" ? { content: text.text } : {}),
          ...(data.receipt === undefined ? {} : { receipt: data.receipt }),
        };
      }
      if (data.verdict === "unknown") return { status: "unknown", reason: escalationReason(tape.events(tape.active), reconciled.seq, actionId) };
      return { status: data.verdict };
    };
  }
  return replayed as unknown as AnyTool;
}
