import type { JsonValue, Outcome, RunState, YokeEventDraft } from "@yoke/protocol";
import type { RunContext } from "../run-context.js";

/** `run.completed` with `outcome`; `output` is the structured output that passed the run's schema, when one was asked for. */
export function runCompleted(context: RunContext, state: RunState, outcome: Outcome, output?: JsonValue): YokeEventDraft {
  return {
    type: "run.completed",
    at: context.deps.clock.now(),
    causationId: state.currentTurnId ?? null,
    data: { outcome, turns: state.turns, ...(output === undefined ? {} : { output }) },
  };
}

export function cancelledOutcome(signal: AbortSignal): Outcome {
  const reason: unknown = signal.reason;
  const text = typeof reason === "string" ? reason : reason instanceof Error && reason.message ? reason.message : "cancelled by the caller";
  return { status: "cancelled", reason: text };
}
