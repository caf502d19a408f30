/**
 * @yoke/runtime/loop — the building blocks of the harness's loop, for a custom runtime that
 * journals runs the harness (and any Yoke reader) can read, verify and resume: typed event
 * drafts, the verdict on a response's tool calls, the model retry policy, the run-state fold a
 * resume starts from, and the tool-result envelopes. Importing it loads none of the harness:
 * no context compiler, no journal store, no logger.
 *
 * A loop built from these: fold the run (`loadRunState`), append `turn.started` and
 * `model.requested`, call the model (`generateWithRetry`), append `model.responded`, judge
 * its calls (`validateCalls`), and journal each call's verdict before anything runs: a
 * refused call is answered by `tool.rejected` (with `errorEnvelope`); a call that runs is an
 * action, `action.admitted` before its dispatch and `action.committed` or `action.failed`
 * with its envelope (`outputEnvelope`) after (docs/decisions/0002 and 0006). End with
 * `run.completed`. Every append names `state.length` (or the seq after the last append) as
 * its expected sequence number.
 *
 * @example
 * ```ts
 * import { generateWithRetry, loadRunState, validateCalls, yokeEventDraft } from "@yoke/runtime/loop";
 *
 * const state = await loadRunState(journal, scope);
 * const response = await generateWithRetry(provider, request, { retries: 2 });
 * const drafts = [yokeEventDraft("model.responded", { turnId, response, latencyMs: 0 }, { at: clock.now() })];
 * const verdicts = validateCalls(toolCallsOf(response), new Map([[echo.name, echo]]));
 * await journal.append(scope, state!.length, drafts);
 * ```
 */
export { generateWithRetry, loadRunState, yokeEventDraft } from "./loop-blocks.js";
export type { ModelRetryOptions, YokeEventDraftOf } from "./loop-blocks.js";
export { isRetryableModelError, modelRetryDelayMs } from "./model-call.js";
export type { ModelCallFailure, Sleep } from "./model-call.js";
export { validateCalls } from "./validate-calls.js";
export type { CallDecision, RejectionCode } from "./validate-calls.js";
export { currentTurn, lastResponse } from "./loop/current-turn.js";
export { errorEnvelope, outputEnvelope } from "@yoke/scheduler";
