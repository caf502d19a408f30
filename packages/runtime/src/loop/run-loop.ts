import { YokeError, awaitingApprovals } from "@yoke/protocol";
import type { RunResult, WaitingRunResult } from "../harness-types.js";
import type { RunContext } from "../run-context.js";
import { Turn, commitTurn } from "../turn/turn.js";
import { actOnResponse } from "./act-on-response.js";
import { callModel } from "./call-model.js";
import { addNextTurn, cancelledOutcome } from "./next-turn.js";
import { cancelDrafts } from "./cancel-drafts.js";
import { journalRunFailure } from "./run-failure.js";
import { hasPendingCompensations, runCompensations } from "./run-compensations.js";
import { runTools } from "./run-tools.js";
import { finalText } from "../result-text.js";
import { outputValue } from "../structured-output.js";
import { holdLive, landInputDrafts, pendingCancel, pollInterrupts } from "../interrupts.js";

/**
 * Drives a run from whatever phase its state is in to an outcome. Each step reads the live
 * state (`peek`, no copy), does one piece of work and commits what it learned; the phase of
 * the folded state alone decides the next step, which is why a resume needs nothing but the
 * journal. Cancellation lands between steps, never between a tool call and its result, and
 * cuts a model call in flight short (`callModel`). An error that stops the run is journaled
 * as `run.failed` before it propagates.
 */
export async function runLoop(context: RunContext): Promise<RunResult | WaitingRunResult> {
  let result: Omit<RunResult, "output"> | WaitingRunResult;
  // While this process drives the run, a cancel sent through its harness cuts a model call short.
  const live = holdLive(context);
  try {
    result = await driveRun(context, live.controller);
  } catch (error) {
    // The journal says why the run stopped; it stays resumable from where it was.
    await journalRunFailure(context, error);
    throw error;
  } finally {
    live.release();
  }
  if (result.waiting !== undefined) return result;
  // Outside the loop's guard: the run has finished, nothing about it is a failure to journal.
  return { ...result, output: await outputValue(context.deps.output, result.state.output) };
}

async function driveRun(context: RunContext, interrupt: AbortController): Promise<Omit<RunResult, "output"> | WaitingRunResult> {
  for (;;) {
    const state = context.accumulator.peek();
    if (state.phase === "finished") {
      // Unreachable (the fold sets the outcome with the phase, from run.completed): a guard, its message untested.
      if (state.outcome === undefined) throw new YokeError("INTERNAL", `run ${state.runId} finished without an outcome`);
      const snapshot = context.accumulator.snapshot();
      return { runId: state.runId, outcome: state.outcome, text: finalText(snapshot), state: snapshot };
    }
    // Compensations are pending only in phase ready (begun with a batch's outcomes, ended with the next turn's start), or in
    // a finished run, handled above: the phase test says when this runs.
    if (state.phase === "ready" && hasPendingCompensations(context)) {
      // Effects already journaled as being undone are undone before anything else, cancelled or not.
      await runCompensations(context);
      continue;
    }
    if (context.signal?.aborted && state.phase !== "tools_pending") {
      // In `awaiting_response` a model call's reservation is open (a crash cut the call): settled as the run ends.
      await commitTurn(context, cancelDrafts(context, state, { outcome: cancelledOutcome(context.signal) }));
      continue;
    }
    // Interrupts from any process: read at every step, landed only between turns (a cancel
    // anywhere but between a tool call and its result; an input at the next turn's start).
    await pollInterrupts(context);
    const cancel = state.phase === "tools_pending" ? undefined : pendingCancel(context);
    if (cancel !== undefined) {
      context.logger.info({ interruptId: cancel.interruptId }, "cancelled by an interrupt");
      await commitTurn(context, cancelDrafts(context, state, { interrupt: cancel }));
      continue;
    }
    if (state.waiting !== undefined) {
      // A person's input sent as an interrupt answers the wait; otherwise the run returns, waiting.
      const inputs = landInputDrafts(context, state.currentTurnId ?? null);
      if (inputs.length > 0) {
        await commitTurn(context, inputs);
        continue;
      }
      const snapshot = context.accumulator.snapshot();
      const { kind, reason } = state.waiting;
      context.logger.info({ kind }, "run waits for a person");
      return {
        runId: snapshot.runId,
        outcome: undefined,
        waiting: { kind: "human", reason: kind, detail: reason, approvals: [] },
        text: finalText(snapshot),
        output: undefined,
        state: snapshot,
      };
    }
    switch (state.phase) {
      case "ready": {
        const turn = Turn.open(context);
        addNextTurn(turn);
        await turn.commit();
        break;
      }
      case "awaiting_response":
        await callModel(context, interrupt);
        break;
      case "tools_pending":
        if ((await runTools(context)) === "waiting") {
          // Parked for a person: the run returns, resumable once an approval is decided.
          const snapshot = context.accumulator.snapshot();
          context.logger.info({ approvals: awaitingApprovals(snapshot).map((approval) => approval.approvalId) }, "run waits for approval");
          return {
            runId: snapshot.runId,
            outcome: undefined,
            waiting: { kind: "approval", approvals: awaitingApprovals(snapshot) },
            text: finalText(snapshot),
            output: undefined,
            state: snapshot,
          };
        }
        break;
      case "responded":
        await actOnResponse(context);
        break;
    }
  }
}
