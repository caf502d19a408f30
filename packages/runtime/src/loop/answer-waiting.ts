import { YokeError, type YokeEventDraft } from "@yoke/protocol";
import type { WaitingAnswerOptions } from "../loop-control.js";
import type { RunContext } from "../run-context.js";
import { commitTurn } from "../turn/turn.js";
import { runCompleted } from "./run-completed.js";

/**
 * `resume(runId, { input })` / `resume(runId, { close })` on a run waiting for a person
 * (`run.waiting`): the input lands as `input.added` (source `operator`) and the run goes on;
 * a close ends it `refused` (a refusal or content filter) or `escalated`. Journaled under the
 * run's lease before the loop resumes. RUN_NOT_WAITING when the run does not wait for a
 * person; CONFIG_INVALID for both options at once or an empty input.
 */
export async function answerWaiting(context: RunContext, options: WaitingAnswerOptions): Promise<void> {
  const { input, close } = options;
  if (input === undefined && close === undefined) return;
  if (input !== undefined && close !== undefined)
    throw new YokeError("CONFIG_INVALID", "resume: pass input or close, not both", { details: { option: "input" } });
  if (input !== undefined && (typeof input !== "string" || input.trim() === "")) {
    throw new YokeError("CONFIG_INVALID", "resume: input must be non-empty text", { details: { option: "input" } });
  }
  if (close !== undefined && typeof close !== "string")
    throw new YokeError("CONFIG_INVALID", "resume: close must be a reason (text)", { details: { option: "close" } });
  const state = context.accumulator.peek();
  const waiting = state.waiting;
  // The phase test says what is meant; the fold clears `waiting` with run.completed as well.
  if (waiting === undefined || state.phase === "finished") {
    const what = state.phase === "finished" ? `has finished (${state.outcome?.status})` : "does not wait for a person";
    throw new YokeError("RUN_NOT_WAITING", `run ${state.runId} ${what}: there is nothing to answer`, { details: { ...context.scope, phase: state.phase } });
  }
  const at = context.deps.clock.now();
  const turnId = state.currentTurnId ?? null;
  let draft: YokeEventDraft;
  if (input !== undefined) {
    draft = { type: "input.added", at, causationId: turnId, data: { source: "operator", content: [{ type: "text", text: input }] } };
  } else {
    const reason = close === "" ? waiting.reason : `${waiting.reason} (closed: ${close})`;
    draft = runCompleted(context, state, waiting.kind === "escalation" ? { status: "escalated", reason } : { status: "refused", reason });
  }
  context.logger.info({ kind: waiting.kind, answer: input !== undefined ? "input" : "close" }, "a person answered the run's wait");
  await commitTurn(context, [draft]);
}
