import type { JournalEvent, VerifyResult, YokeEvent } from "@yoke/protocol";
import { YokeError } from "@yoke/protocol";
import { describeEvent } from "./describe-event.js";
import { InspectReader } from "./event-reader.js";
import { ActionFolder } from "./inspect-actions.js";
import { BudgetFolder } from "./inspect-budget.js";
import { StopFolder } from "./inspect-stops.js";
import { TurnFolder } from "./inspect-turns.js";
import type { ChainStatus, InspectProblem, RunHeader, RunStatus, RunView, TimelineEntry } from "./run-view.js";

/** What `inspectRun` may be given beside the events. */
export interface InspectOptions {
  /** The journal's verdict on the run's chain (`journal.verify(scope)`): shown as the view's `chain`. */
  readonly verification?: VerifyResult;
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
  const reader = new InspectReader(problems);
  const turns = new TurnFolder(problems);
  const actions = new ActionFolder(problems);
  const stops = new StopFolder(problems);
  const budget = new BudgetFolder();
  const timeline: TimelineEntry[] = [];
  let started: (YokeEvent & { type: "run.started" }) | undefined;
  let last: JournalEvent | undefined;
  let count = 0;

  for (const stored of events) {
    count += 1;
    last = stored;
    const event = reader.read(stored);
    if (event === undefined) {
      const entry = { seq: stored.seq, at: stored.at, type: stored.type, turn: turns.currentIndex, actionId: undefined };
      timeline.push({ ...entry, summary: "(not a Yoke event)" });
      continue;
    }
    if (event.type === "run.started") started = event;
    // Decision facts are read from the data as stored: a member this reader's schema drops still shows.
    const actionId = actions.apply(event, stored.data);
    const opened = event.type === "action.admitted" || event.type === "action.proposed" || event.type === "action.approval_requested";
    const turn = turns.apply(event, opened ? actionId : undefined, stored.data);
    stops.apply(event);
    // After the turns: a model call's reservation rides on its model.requested, which the turns register.
    budget.apply(event, actions, turns.callsByTurnId);
    timeline.push({ seq: event.seq, at: event.at, type: event.type, turn, actionId, summary: describeEvent(event) });
  }

  if (started === undefined || last === undefined) {
    throw new YokeError("RUN_NOT_FOUND", "the events hold no run.started: there is no run to inspect");
  }
  const budgetView = budget.view();
  const currency = budgetView?.pricing?.currency;
  const { usage } = turns;
  return {
    header: headerOf(started, last, count, reader, turns, stops, timeline, budgetView?.limits.turns),
    turns: turns.views(currency),
    actions: actions.views(),
    budget: budgetView,
    approvals: stops.approvals,
    verifierRuns: stops.verifierRuns,
    waits: stops.waits,
    interrupts: stops.interrupts,
    loopDetections: stops.loopDetections,
    failures: stops.failures,
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

function headerOf(
  started: YokeEvent & { type: "run.started" },
  last: JournalEvent,
  count: number,
  reader: InspectReader,
  turns: TurnFolder,
  stops: StopFolder,
  timeline: readonly TimelineEntry[],
  budgetTurns: number | undefined,
): RunHeader {
  const state = reader.state;
  const completed = [...timeline].reverse().find((entry) => entry.type === "run.completed");
  const outcome = state?.outcome;
  const status: RunStatus =
    outcome !== undefined || completed !== undefined
      ? "finished"
      : state?.waiting !== undefined || stops.lastStop === "waiting" || stops.pendingApproval
        ? "waiting"
        : stops.lastStop === "failed"
          ? "failed"
          : "running";
  return {
    tenantId: started.tenantId,
    runId: started.runId,
    sessionId: started.data.sessionId,
    task: started.data.task,
    systemPrompt: started.data.systemPrompt,
    parent: started.data.parent,
    inboxOf: started.data.inboxOf,
    status,
    outcome,
    turns: state?.turns ?? turns.lastStarted?.index ?? 0,
    maxTurns: started.data.limits.maxTurns,
    turnLimit: budgetTurns === undefined ? started.data.limits.maxTurns : Math.min(budgetTurns, started.data.limits.maxTurns),
    tools: started.data.tools.map((tool) => tool.name),
    release: state?.release ?? started.data.release,
    releasedAt: [...timeline].reverse().find((entry) => entry.type === "release.changed" || entry.type === "release.migrated")?.seq,
    startedAt: started.at,
    lastEventAt: last.at,
    events: count,
    lastSeq: last.seq,
  };
}

function chainOf(verification: VerifyResult | undefined): ChainStatus {
  if (verification === undefined) return { checked: false };
  return verification.ok
    ? { checked: true, ok: true, events: verification.events, headHash: verification.headHash }
    : { checked: true, ok: false, firstBadSeq: verification.firstBadSeq, reason: verification.reason, message: verification.message };
}
