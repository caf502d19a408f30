import {
  VerifierVerdictSchema,
  newId,
  readYokeEvents,
  type JsonValue,
  type ModelResponse,
  type RunState,
  type VerifierV1,
  type VerifierVerdict,
  type YokeEvent,
  type YokeEventDraft,
} from "@yoke/protocol";
import type { RunContext } from "../run-context.js";
import { runCompleted } from "../loop/run-completed.js";
import type { Answer, GateCommits, TurnParticipant } from "../turn/participant.js";
import { finalText } from "../result-text.js";
import { COMPLETION_CHECK_VERIFIER_ID } from "./check-verifier.js";
import { reserveVerifierRun, settleVerifierRun } from "../budget/budget-participant.js";

/** The journaled source of a failed verifier's observation sent back to the model. */
export const VERIFIER_SOURCE = "verifier";

/** The verifier gate as a participant: it judges every answer when the harness has a verifier or a check. */
export const verifierGate: TurnParticipant = {
  name: "verifier gate",
  gate: async (context, answer, commits) => {
    if (context.deps.loopControl.verifiers.length === 0) return undefined;
    await runGate(context, answer, commits);
    return "decided";
  },
};

/**
 * The completion gate: never trust "done" unverified. Each verifier of the harness runs in
 * order for the answer of `turnId`: `verifier.started` is journaled (durably) before it runs,
 * `verifier.finished` with its verdict after. A verifier this turn's gate already finished is
 * not run again; one a crash cut short (started, never finished) runs again only when
 * `replaySafe`, else the run waits for a person (`run.waiting` kind `escalation`). All pass:
 * `verified_success`. The first failure ends the gate:
 * - `escalate: true` → `run.waiting` kind `escalation` (a person decides);
 * - `retry` not false, `verifierRetries` not used up and turns left → the verdict goes back
 *   to the model (`input.added` source `verifier`, or `completion-check` with the bare reason
 *   for `checkCompletion`) and the next turn starts;
 * - else → `verification_failed` with the verdict's reason.
 * `completion.checked` still summarizes the gate, next to the last `verifier.finished`.
 */
export async function runGate(context: RunContext, { state, response, turnId, output }: Answer, commits: GateCommits): Promise<void> {
  const { verifiers } = context.deps.loopControl;
  const attempt = context.facts.failedGateTurns.size - (context.facts.failedGateTurns.has(turnId) ? 1 : 0) + 1;
  for (const [index, verifier] of verifiers.entries()) {
    const gate = context.facts.gate.turnId === turnId ? context.facts.gate : undefined;
    let verdict = gate?.finished.get(verifier.id);
    if (verdict === undefined) {
      // Budget: a run a crash cut short is settled (it ran: its time is charged) before anything else.
      const cutShort = commits.settle({ kind: "cut_verifier_run" }).carry([]);
      if (gate?.started.has(verifier.id) === true && !gate.started.get(verifier.id)!.replaySafe) {
        const reason = `verifier ${verifier.id} was cut short (the process stopped while it ran) and is not safe to run again; a person must decide whether the answer holds`;
        context.logger.warn({ turnId, verifierId: verifier.id }, "verifier cut short, not replay-safe: escalating");
        return commits.commit([...cutShort, waiting(context, turnId, reason)]);
      }
      const verifierRunId = newId(context.deps.ids, "verification");
      // Budget: the verifier's declared worst case is held before it starts, on `verifier.started`; no room ends the run.
      const reserved = reserveVerifierRun(context, turnId, verifierRunId, verifier.reserve);
      if (reserved !== undefined && "refused" in reserved) {
        const { budget, limit } = reserved.refused;
        context.logger.info({ turnId, verifierId: verifier.id, budget, limit }, "verifier run does not fit the budget");
        return commits.commit([...cutShort, runCompleted(context, state, reserved.refused)]);
      }
      await commits.commit([
        ...cutShort,
        {
          type: "verifier.started",
          at: context.deps.clock.now(),
          causationId: turnId,
          data: {
            turnId,
            verifierRunId,
            verifierId: verifier.id,
            attempt,
            replaySafe: verifier.replaySafe,
            ...(reserved === undefined ? {} : { reserved: reserved.reserved }),
          },
        },
      ]);
      // Read after `verifier.started`: a verifier sees every verdict before its own.
      const events = await collect(context);
      verdict = await verify(context, verifier, response, output, events);
      // Budget: charged its wall time (the injected clock's), on `verifier.finished`.
      const settled = settleVerifierRun(context);
      const finished: YokeEventDraft = {
        type: "verifier.finished",
        at: context.deps.clock.now(),
        causationId: turnId,
        data: { turnId, verifierRunId, verdict, ...(settled === undefined ? {} : { settled }) },
      };
      const last = index === verifiers.length - 1;
      if (verdict.passed && !last) {
        await commits.commit([finished]);
        continue;
      }
      if (verdict.passed) return commits.commit([finished, ...passed(context, state, turnId, verdict, output)]);
      return failed(context, commits, state, turnId, verdict, [finished]);
    }
    if (!verdict.passed) return failed(context, commits, state, turnId, verdict, []);
    if (index === verifiers.length - 1) return commits.commit(passed(context, state, turnId, verdict, output));
  }
}

function passed(context: RunContext, state: RunState, turnId: string, verdict: VerifierVerdict, output: JsonValue | undefined): YokeEventDraft[] {
  // The outcome's summary: what the last verifier said (a check's summary).
  const summary = verdict.reason === undefined ? {} : { summary: verdict.reason };
  return [
    { type: "completion.checked", at: context.deps.clock.now(), causationId: turnId, data: { turnId, passed: true } },
    runCompleted(context, state, { status: "verified_success", ...summary }, output),
  ];
}

async function failed(
  context: RunContext,
  commits: GateCommits,
  state: RunState,
  turnId: string,
  verdict: VerifierVerdict,
  before: YokeEventDraft[],
): Promise<void> {
  const reason = verdict.reason ?? `verifier ${verdict.verifierId} did not pass`;
  const checked: YokeEventDraft = { type: "completion.checked", at: context.deps.clock.now(), causationId: turnId, data: { turnId, passed: false, reason } };
  const retriesUsed = context.facts.failedGateTurns.size - (context.facts.failedGateTurns.has(turnId) ? 1 : 0);
  context.logger.info({ turnId, verifierId: verdict.verifierId, retriesUsed, escalate: verdict.escalate === true }, "verifier gate failed");
  if (verdict.escalate === true) return commits.commit([...before, checked, waiting(context, turnId, `verifier ${verdict.verifierId}: ${reason}`)]);
  if (verdict.retry !== false && retriesUsed < context.deps.loopControl.verifierRetries && state.turns < state.maxTurns) {
    const isCheck = verdict.verifierId === COMPLETION_CHECK_VERIFIER_ID && verdict.kind === "check";
    const feedback: YokeEventDraft = {
      type: "input.added",
      at: context.deps.clock.now(),
      causationId: turnId,
      data: isCheck
        ? { source: "completion-check", content: [{ type: "text", text: reason }] }
        : { source: VERIFIER_SOURCE, content: [{ type: "text", text: observation(verdict, reason) }] },
    };
    return commits.next([...before, checked, feedback]);
  }
  return commits.commit([...before, checked, runCompleted(context, state, { status: "verification_failed", reason })]);
}

/**
 * The typed observation a failed verifier sends back: a first line naming the verifier and
 * the reason, then its details as JSON. Deterministic for a verdict.
 */
export function observation(verdict: VerifierVerdict, reason: string): string {
  const head = `[runtime] verifier ${verdict.verifierId} (${verdict.kind}) did not pass: ${reason}`;
  return verdict.details === undefined ? head : `${head}\ndetails: ${JSON.stringify(verdict.details)}`;
}

function waiting(context: RunContext, turnId: string, reason: string): YokeEventDraft {
  return { type: "run.waiting", at: context.deps.clock.now(), causationId: turnId, data: { turnId, kind: "escalation", reason } };
}

/**
 * Runs one verifier. A malformed verdict is a failed one (never retried by the model); a
 * throw stops the run like any error in the loop (`run.failed`, resumable): the verifier's
 * `verifier.started` stays without a verdict, so a resume runs it again only when it is
 * replay-safe, and otherwise escalates.
 */
async function verify(
  context: RunContext,
  verifier: VerifierV1,
  response: ModelResponse,
  output: JsonValue | undefined,
  events: readonly YokeEvent[],
): Promise<VerifierVerdict> {
  const base = { verifierId: verifier.id, kind: verifier.kind };
  const verdict = await verifier.verify({
    tenantId: context.scope.tenantId,
    runId: context.scope.runId,
    state: context.accumulator.snapshot(),
    events,
    answer: { text: finalText(context.accumulator.snapshot()), ...(output === undefined ? {} : { output }), response },
    ...(context.deps.loopControl.workspace === undefined ? {} : { workspace: context.deps.loopControl.workspace }),
    signal: context.signal ?? new AbortController().signal,
    clock: context.deps.clock,
  });
  const parsed = VerifierVerdictSchema.safeParse(verdict);
  if (!parsed.success) return { ...base, passed: false, reason: `verifier ${verifier.id} returned a malformed verdict: ${parsed.error.message}`, retry: false };
  // The gate's own names win: the journal names what ran.
  return withoutUndefined({ ...parsed.data, ...base });
}

function withoutUndefined(verdict: VerifierVerdict): VerifierVerdict {
  return JSON.parse(JSON.stringify(verdict)) as VerifierVerdict;
}

async function collect(context: RunContext): Promise<YokeEvent[]> {
  const events: YokeEvent[] = [];
  for await (const event of readYokeEvents(context.deps.journal, context.scope)) events.push(event);
  return events;
}
