import type { JsonValue, ModelResponse, RunState, YokeEventDraft } from "@yoke/protocol";
import type { CompletionCheck, CompletionVerdict } from "../harness-types.js";
import { commit, preview, type RunContext } from "../run-context.js";
import { currentTurn, lastResponse } from "./current-turn.js";
import { requestDrafts } from "../request-builder.js";
import { nextTurnDrafts, runCompleted } from "./next-turn.js";
import { truncationDrafts } from "./output-limit.js";
import { OUTPUT_SCHEMA_SOURCE, judgeAnswer, outputNote, outputRetriesUsed, type ResolvedOutput } from "../structured-output.js";

/**
 * Phase `responded` (a response without tool calls):
 * - a `refusal` part, or stop reason `refusal` or `content_filter`: the run ends `refused`,
 *   with the refusal's own words as the reason; a refusal is never an answer, so it never
 *   reaches the completion check;
 * - a tool call the output limit cut (`tool-call-truncated`): it is not run; the turn goes
 *   on with a note telling the model to call again with shorter arguments, journaled with
 *   the request (`truncationDrafts`), until too many responses in a row were cut;
 * - stop reason `max_tokens`, `pause`: the turn goes on; request again in the same turn;
 * - `end_turn` (and anything else): with an `output` schema, the answer must be JSON that
 *   the schema accepts first (else it goes back to the model, `outputRetries` times, then the
 *   run ends `verification_failed`); then the completion check decides; with no check, the
 *   run ends `completed` (unverified), never `verified_success`. The accepted output is
 *   journaled in `run.completed`.
 */
export async function actOnResponse(context: RunContext): Promise<void> {
  const state = context.accumulator.peek();
  const response = lastResponse(state);
  const turnId = currentTurn(state);
  if (response.content.some((part) => part.type === "refusal") || response.stopReason === "refusal" || response.stopReason === "content_filter") {
    return commit(context, [runCompleted(context, state, { status: "refused", reason: refusalReason(response) })]);
  }
  const truncation = truncationDrafts(context, state);
  if (truncation.kind === "end") return commit(context, [runCompleted(context, state, truncation.outcome)]);
  if (truncation.kind === "note") {
    const noted = preview(context, [truncation.draft], state.length);
    return commit(context, [truncation.draft, ...requestDrafts(context, noted, turnId)]);
  }
  switch (response.stopReason) {
    case "max_tokens":
    case "pause":
      return commit(context, requestDrafts(context, state, turnId));
    default: {
      let output: JsonValue | undefined;
      if (context.deps.output !== undefined) {
        const verdict = await judgeAnswer(context.deps.output, response);
        if (!verdict.ok) return rejectAnswer(context, context.deps.output, state, turnId, verdict.reason);
        output = verdict.json;
      }
      if (context.deps.checkCompletion === undefined) return commit(context, [runCompleted(context, state, { status: "completed" }, output)]);
      return checkCompletion(context, context.deps.checkCompletion, state, response, turnId, output);
    }
  }
}

/**
 * An answer that is not the structured output asked for: journaled as a failed completion
 * check; the reason goes back to the model (`input.added`, source `output-schema`) while
 * `outputRetries` allow and turns are left, else the run ends `verification_failed`.
 */
async function rejectAnswer(context: RunContext, output: ResolvedOutput, state: RunState, turnId: string, reason: string): Promise<void> {
  const why = `the final answer does not match the output schema: ${reason}`;
  const checked: YokeEventDraft = {
    type: "completion.checked",
    at: context.deps.clock.now(),
    causationId: turnId,
    data: { turnId, passed: false, reason: why },
  };
  const retriesUsed = outputRetriesUsed(state);
  context.logger.info({ turnId, retriesUsed }, "final answer does not match the output schema");
  if (retriesUsed < context.deps.outputRetries && state.turns < state.maxTurns) {
    const note: YokeEventDraft = {
      type: "input.added",
      at: context.deps.clock.now(),
      causationId: turnId,
      data: { source: OUTPUT_SCHEMA_SOURCE, content: [{ type: "text", text: outputNote(reason, output) }] },
    };
    return commit(context, [checked, note, ...nextTurnDrafts(context, preview(context, [checked, note], state.length))]);
  }
  return commit(context, [checked, runCompleted(context, state, { status: "verification_failed", reason: why })]);
}

/**
 * Never trust "done" unverified. A pass ends the run `verified_success`; a failure either
 * goes back to the model as input (grouped with the next turn's start) or ends the run
 * `verification_failed`.
 */
async function checkCompletion(
  context: RunContext,
  check: CompletionCheck,
  state: RunState,
  response: ModelResponse,
  turnId: string,
  output: JsonValue | undefined,
): Promise<void> {
  const verdict = normalizeVerdict(await check({ state: context.accumulator.snapshot(), response }));
  const at = context.deps.clock.now();
  if (verdict.passed) {
    const summary = verdict.summary === undefined ? {} : { summary: verdict.summary };
    return commit(context, [
      { type: "completion.checked", at, causationId: turnId, data: { turnId, passed: true } },
      runCompleted(context, state, { status: "verified_success", ...summary }, output),
    ]);
  }
  const checked: YokeEventDraft = { type: "completion.checked", at, causationId: turnId, data: { turnId, passed: false, reason: verdict.reason } };
  context.logger.info({ turnId, retry: verdict.retry !== false }, "completion check failed");
  if (verdict.retry !== false && state.turns < state.maxTurns) {
    const feedback: YokeEventDraft = {
      type: "input.added",
      at: context.deps.clock.now(),
      causationId: turnId,
      data: { source: "completion-check", content: [{ type: "text", text: verdict.reason }] },
    };
    const next = nextTurnDrafts(context, preview(context, [checked, feedback], state.length));
    return commit(context, [checked, feedback, ...next]);
  }
  return commit(context, [checked, runCompleted(context, state, { status: "verification_failed", reason: verdict.reason })]);
}

/** Tolerates a check written in plain JavaScript that returns something loose. */
function normalizeVerdict(verdict: CompletionVerdict | undefined): CompletionVerdict {
  if (verdict?.passed === true) return typeof verdict.summary === "string" ? { passed: true, summary: verdict.summary } : { passed: true };
  const loose = verdict as { reason?: unknown; retry?: unknown } | undefined;
  const reason = typeof loose?.reason === "string" && loose.reason !== "" ? loose.reason : "the completion check did not pass";
  return loose?.retry === false ? { passed: false, reason, retry: false } : { passed: false, reason };
}

/** The refusal's own words; else the text of a refusal that came as text (a filter's note); else the stop reason. */
function refusalReason(response: ModelResponse): string {
  const textOf = (type: "refusal" | "text") =>
    response.content
      .flatMap((part) => (part.type === type ? [part.text] : []))
      .join("\n")
      .trim();
  const text = textOf("refusal") || textOf("text");
  return text === "" ? `the model stopped with ${response.stopReason}` : text;
}
