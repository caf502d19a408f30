import { YokeError, type RunState } from "@yoke/protocol";

// Both guards are unreachable from a folded state (the fold refuses the events that would lead there); they say
// what broke if the fold ever changes.

/** The turn in progress; a run past `turn.started` always has one. */
export function currentTurn(state: RunState): string {
  if (state.currentTurnId === undefined) {
    throw new YokeError("INTERNAL", `run ${state.runId} is in phase ${state.phase} without a current turn`, {
      details: { runId: state.runId, phase: state.phase, seq: state.length },
    });
  }
  return state.currentTurnId;
}

/** The last response; a run in phase `responded` or `tools_pending` always has one. */
export function lastResponse(state: RunState): NonNullable<RunState["lastResponse"]> {
  if (state.lastResponse === undefined) {
    throw new YokeError("INTERNAL", `run ${state.runId} is in phase ${state.phase} without a response`, {
      details: { runId: state.runId, phase: state.phase, seq: state.length },
    });
  }
  return state.lastResponse;
}
