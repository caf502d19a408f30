import type { Manifest } from "@yoke/context-compiler";
import {
  RunStateAccumulator,
  YokeError,
  parseYokeEvent,
  CallInputReader,
  type ActionOpeningEvent,
  type JournalEvent,
  type RunState,
  type Usage,
  type VerifyResult,
  type YokeEvent,
} from "@yoke/protocol";
import { ActionFolder } from "./inspect-actions.js";
import { BudgetFolder } from "./inspect-budget.js";
import { nextManifest, summarizeManifest } from "./inspect-manifest.js";
import { describeEvent } from "./describe-event.js";
import type {
  ApprovalView,
  ChainStatus,
  InputView,
  InspectProblem,
  InterruptView,
  LoopDetectionView,
  ModelCallView,
  RejectionView,
  ResponsePartView,
  RunFailureView,
  RunStatus,
  RunView,
  TimelineEntry,
  TurnView,
  VerifierRunView,
  WaitView,
} from "./run-view.js";

/** What `inspectRun` may be given beside the events. */
export interface InspectOptions {
  /** The journal's verdict on the run's chain (`journal.verify(scope)`): shown as the view's `chain`. */
  readonly verification?: VerifyResult;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type TurnDraft = Mutable<Omit<TurnView, "modelCalls" | "actionIds" | "rejections" | "inputs">> & {
  modelCalls: Mutable<ModelCallView>[];
  actionIds: string[];
  rejections: RejectionView[];
  inputs: InputView[];
};

const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0 };

function addUsage(total: Usage, usage: Usage): Usage {
  const sum = (a: number | undefined, b: number | undefined) => (a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0));
  const cacheRead = sum(total.cacheReadTokens, usage.cacheReadTokens);
  const cacheWrite = sum(total.cacheWriteTokens, usage.cacheWriteTokens);
  return {
    inputTokens: total.inputTokens + usage.inputTokens,
    outputTokens: total.outputTokens + usage.outputTokens,
    ...(cacheRead === undefined ? {} : { cacheReadTokens: cacheRead }),
    ...(cacheWrite === undefined ? {} : { cacheWriteTokens: cacheWrite }),
  };
}

function partsOf(event: YokeEvent & { type: "model.responded" }): ResponsePartView[] {
  return event.data.response.content.map((part): ResponsePartView => {
    switch (part.type) {
      case "text":
        return { type: "text", text: part.text };
      case "refusal":
        return { type: "refusal", text: part.text };
      case "reasoning":
        return { type: "reasoning" };
      case "tool-call":
        return { type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, arguments: part.rawArguments, truncated: false };
      case "tool-call-truncated":
        return { type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, arguments: part.rawArguments, truncated: true };
      case "tool-call-withheld":
        return { type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, arguments: part.rawArguments, truncated: false, withheld: true };
      case "server-tool-call":
        return { type: "server-tool", text: `${part.provider} ran ${part.toolName}` };
      default:
        return { type: "server-tool", text: part.resultType };
    }
  });
}

function chainOf(verification: VerifyResult | undefined): ChainStatus {
  if (verification === undefined) return { checked: false };
  return verification.ok
    ? { checked: true, ok: true, events: verification.events, headHash: verification.headHash }
    : { checked: true, ok: false, firstBadSeq: verification.firstBadSeq, reason: verification.reason, message: verification.message };
}

function newTurn(index: number, turnId: string | undefined, event: JournalEvent, offered: readonly string[] | undefined): TurnDraft {
  return {
    index,
    turnId,
    seq: event.seq,
    at: event.at,
    offered,
    modelCalls: [],
    actionIds: [],
    rejections: [],
    inputs: [],
    usage: ZERO_USAGE,
    cost: undefined,
    currency: undefined,
    firstSeq: event.seq,
    lastSeq: event.seq,
  };
}

/**
 * Builds the run model of one run from its stored events (in sequence order, as
 * `journal.read` yields them): header, turns with their model calls (request hash, manifest
 * summary, response, usage and cost), actions with their state strip, attempts, receipts,
 * reconciliations and compensations, approvals, budget reservations and settlements,
 * verifier runs, waits, interrupts, loop detections, and a one-line timeline. Pure and
 * tolerant: an event it cannot place is listed in `problems`, never thrown, so a damaged
 * run still shows what it holds. Throws RUN_NOT_FOUND only when there is no `run.started`.
 *
 * @example
 * ```ts
 * const events = [];
 * for await (const event of journal.read(scope)) events.push(event);
 * const view = inspectRun(events, { verification: await journal.verify(scope) });
 * console.log(view.header.status, view.turns.length, view.actions.map((action) => action.state));
 * ```
 */
export function inspectRun(events: Iterable<JournalEvent>, options: InspectOptions = {}): RunView {
  const problems: InspectProblem[] = [];
  const accumulator = new RunStateAccumulator();
  let foldBroken = false;
  const actions = new ActionFolder(problems);
  const budget = new BudgetFolder();
  const turns: TurnDraft[] = [];
  const timeline: TimelineEntry[] = [];
  const approvals = new Map<string, Mutable<ApprovalView>>();
  const verifierRuns = new Map<string, Mutable<VerifierRunView>>();
  const waits: WaitView[] = [];
  const interrupts: InterruptView[] = [];
  const loopDetections: LoopDetectionView[] = [];
  const failures: RunFailureView[] = [];
  const callsByTurnId = new Map<string, Mutable<ModelCallView>[]>();
  let started: (YokeEvent & { type: "run.started" }) | undefined;
  let last: JournalEvent | undefined;
  let count = 0;
  let manifest: Manifest | undefined;
  let pendingCompile: { seq: number; summary: ModelCallView["manifest"] } | undefined;
  let usage: Usage = ZERO_USAGE;
  let lastStop: "failed" | "waiting" | undefined;
  const calls = new CallInputReader();

  for (const stored of events) {
    count += 1;
    last = stored;
    let event: YokeEvent;
    if (!foldBroken) {
      try {
        event = accumulator.apply(stored);
      } catch (error) {
        foldBroken = true;
        problems.push({ seq: stored.seq, message: YokeError.isInstance(error) ? error.message : String(error) });
        event = undefined as unknown as YokeEvent;
      }
    }
    if (foldBroken) {
      try {
        event = calls.read(parseYokeEvent(stored));
        if (isActionOpening(event) && event.data.input === undefined) {
          problems.push({
            seq: event.seq,
            message: `event ${event.seq} (${event.type}): inputFromCall names call ${event.data.toolCallId}, not in the last response`,
          });
        }
      } catch (error) {
        problems.push({ seq: stored.seq, message: YokeError.isInstance(error) ? error.message : String(error) });
        timeline.push({
          seq: stored.seq,
          at: stored.at,
          type: stored.type,
          turn: turns.at(-1)?.index ?? 0,
          actionId: undefined,
          summary: "(not a Yoke event)",
        });
        continue;
      }
    }
    event = event!;
    // Read by the fold's side too: after a broken fold, an action's input is given back from it.
    if (!foldBroken) calls.read(event);

    if (event.type === "run.started") started = event;
    let turn: TurnDraft;
    if (event.type === "turn.started") {
      turn = newTurn(
        event.data.index,
        event.data.turnId,
        event,
        event.data.offered?.tools.map((tool) => tool.name),
      );
      turns.push(turn);
      callsByTurnId.set(event.data.turnId, turn.modelCalls);
      lastStop = undefined;
    } else {
      turn = turns.at(-1) ?? newTurn(0, undefined, event, undefined);
      if (turns.length === 0) turns.push(turn);
    }
    turn.lastSeq = event.seq;

    const actionId = actions.apply(event);
    if (actionId !== undefined && (event.type === "action.admitted" || event.type === "action.proposed" || event.type === "action.approval_requested")) {
      turn.actionIds.push(actionId);
    }
    switch (event.type) {
      case "context.compiled":
        try {
          const next = nextManifest(manifest, event);
          manifest = next.manifest;
          pendingCompile = { seq: event.seq, summary: summarizeManifest(next.manifest, next.delta, event) };
        } catch (error) {
          problems.push({ seq: event.seq, message: YokeError.isInstance(error) ? error.message : String(error) });
          pendingCompile = { seq: event.seq, summary: undefined };
        }
        break;
      case "model.requested": {
        const compiled = pendingCompile;
        pendingCompile = undefined;
        turn.modelCalls.push({
          compiledSeq: compiled?.seq,
          requestedSeq: event.seq,
          requestInTurn: turn.modelCalls.length,
          requestHash: event.data.requestHash,
          messageCount: event.data.messageCount,
          manifest: compiled?.summary,
          failures: [],
          response: undefined,
          reservationId: undefined,
          cost: undefined,
        });
        lastStop = undefined;
        break;
      }
      case "model.failed":
        (turn.modelCalls.at(-1)?.failures as Mutable<ModelCallView["failures"][number]>[] | undefined)?.push({
          seq: event.seq,
          attempt: event.data.attempt,
          code: event.data.code,
          message: event.data.message,
          retrying: event.data.retrying,
        });
        break;
      case "model.responded": {
        const { response } = event.data;
        const call = turn.modelCalls.at(-1);
        if (call) {
          call.response = {
            seq: event.seq,
            at: event.at,
            provider: response.provider,
            model: response.model,
            stopReason: response.stopReason,
            parts: partsOf(event),
            usage: response.usage,
            latencyMs: event.data.latencyMs,
            requestId: response.requestId,
          };
        } else {
          problems.push({ seq: event.seq, message: "model.responded without a model.requested in its turn" });
        }
        turn.usage = addUsage(turn.usage, response.usage);
        usage = addUsage(usage, response.usage);
        break;
      }
      case "tool.rejected":
        turn.rejections.push({
          seq: event.seq,
          toolCallId: event.data.toolCallId,
          toolName: event.data.toolName,
          code: event.data.code,
          message: event.data.result.error?.message ?? "",
        });
        break;
      case "input.added":
        turn.inputs.push({ seq: event.seq, source: event.data.source, text: event.data.content.map((part) => part.text).join("\n") });
        lastStop = undefined;
        break;
      case "action.approval_requested":
        approvals.set(event.data.approvalId, {
          approvalId: event.data.approvalId,
          actionId: event.data.actionId,
          requestedSeq: event.seq,
          expiresAt: event.data.binding.expiresAt,
          decision: undefined,
        });
        break;
      case "approval.granted":
      case "approval.denied":
      case "approval.voided": {
        const approval = approvals.get(event.data.approvalId);
        const kind = event.type === "approval.granted" ? "granted" : event.type === "approval.denied" ? "denied" : "voided";
        const by = event.type === "approval.voided" ? undefined : event.data.approver;
        const reason = event.type === "approval.granted" ? undefined : event.data.reason;
        if (approval) approval.decision = { seq: event.seq, kind, by, reason };
        else problems.push({ seq: event.seq, message: `${event.type} for approval ${event.data.approvalId}, which was never requested` });
        break;
      }
      case "verifier.started":
        verifierRuns.set(event.data.verifierRunId, {
          verifierRunId: event.data.verifierRunId,
          verifierId: event.data.verifierId,
          turnId: event.data.turnId,
          attempt: event.data.attempt,
          replaySafe: event.data.replaySafe,
          startedSeq: event.seq,
          finished: undefined,
        });
        break;
      case "verifier.finished": {
        const run = verifierRuns.get(event.data.verifierRunId);
        if (run) run.finished = { seq: event.seq, passed: event.data.verdict.passed, reason: event.data.verdict.reason };
        break;
      }
      case "run.waiting":
        waits.push({ seq: event.seq, kind: event.data.kind, reason: event.data.reason, actionId: event.data.actionId });
        lastStop = "waiting";
        break;
      case "interrupt.landed":
        interrupts.push({ seq: event.seq, interruptId: event.data.interruptId, kind: event.data.kind, inboxSeq: event.data.inboxSeq });
        break;
      case "loop.detected":
        loopDetections.push({
          seq: event.seq,
          toolName: event.data.toolName,
          pattern: event.data.pattern,
          count: event.data.count,
          response: event.data.response,
        });
        break;
      case "run.failed":
        failures.push({ seq: event.seq, code: event.data.code, message: event.data.message, retryable: event.data.retryable });
        lastStop = "failed";
        break;
      default:
        if (!event.type.startsWith("budget.")) lastStop = undefined;
    }
    // After the switch: a model call's reservation rides on its model.requested, which the switch registers.
    budget.apply(event, actions, callsByTurnId);

    timeline.push({ seq: event.seq, at: event.at, type: event.type, turn: turn.index, actionId, summary: describeEvent(event) });
  }

  if (started === undefined || last === undefined) {
    throw new YokeError("RUN_NOT_FOUND", "the events hold no run.started: there is no run to inspect");
  }
  const state: RunState | undefined = accumulator.length > 0 ? accumulator.peek() : undefined;
  const completed = [...timeline].reverse().find((entry) => entry.type === "run.completed");
  const outcome = state?.outcome;
  const pendingApproval = [...approvals.values()].some((approval) => approval.decision === undefined);
  const status: RunStatus =
    outcome !== undefined || completed !== undefined
      ? "finished"
      : state?.waiting !== undefined || lastStop === "waiting" || pendingApproval
        ? "waiting"
        : lastStop === "failed"
          ? "failed"
          : "running";
  const budgetView = budget.view();
  const currency = budgetView?.pricing?.currency;
  const turnViews: TurnView[] = turns.map((turn) => {
    const costs = turn.modelCalls.map((call) => call.cost).filter((cost): cost is number => cost !== undefined);
    return { ...turn, cost: costs.length === 0 ? undefined : costs.reduce((a, b) => a + b, 0), currency };
  });
  const lastTurn = [...turns].reverse().find((turn) => turn.index > 0);
  return {
    header: {
      tenantId: started.tenantId,
      runId: started.runId,
      sessionId: started.data.sessionId,
      task: started.data.task,
      systemPrompt: started.data.systemPrompt,
      parent: started.data.parent,
      inboxOf: started.data.inboxOf,
      status,
      outcome,
      turns: state?.turns ?? lastTurn?.index ?? 0,
      maxTurns: started.data.limits.maxTurns,
      tools: started.data.tools.map((tool) => tool.name),
      release: started.data.release,
      startedAt: started.at,
      lastEventAt: last.at,
      events: count,
      lastSeq: last.seq,
    },
    turns: turnViews,
    actions: actions.views(),
    budget: budgetView,
    approvals: [...approvals.values()],
    verifierRuns: [...verifierRuns.values()],
    waits,
    interrupts,
    loopDetections,
    failures,
    usage: {
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cacheReadTokens: usage.cacheReadTokens ?? 0,
      cacheWriteTokens: usage.cacheWriteTokens ?? 0,
      cost: budgetView?.pricing ? (budgetView.charged.spend ?? 0) : undefined,
      currency,
    },
    timeline,
    chain: chainOf(options.verification),
    problems,
  };
}

function isActionOpening(event: YokeEvent): event is ActionOpeningEvent {
  return event.type === "action.admitted" || event.type === "action.proposed" || event.type === "action.approval_requested";
}
