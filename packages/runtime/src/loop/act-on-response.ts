import { isRefusedResponse, type JsonValue, type ModelResponse, type RunState, type YokeEventDraft } from "@yoke/protocol";
import { landInputDrafts } from "../interrupts.js";
import type { RunContext } from "../run-context.js";
import { Turn, commitTurn } from "../turn/turn.js";
import { HOOKS } from "../turn/hooks.js";
import type { GateCommits } from "../turn/participant.js";
import { settleWork } from "../turn/settle.js";
import { currentTurn, lastResponse } from "./current-turn.js";
import { requestDrafts } from "../request-builder.js";
import { commitWithNextTurn, runCompleted } from "./next-turn.js";
import { truncationDrafts } from "./output-limit.js";
import { OUTPUT_SCHEMA_SOURCE, judgeAnswer, outputNote, outputRetriesUsed, type ResolvedOutput } from "../structured-output.js";

/**
 * Phase `responded` (a response without tool calls):
 * - a `refusal` part, or stop reason `refusal` or `content_filter` (`isRefusedResponse`; its
 *   tool calls, if any, were withheld, never run): the run waits for a person
 *   (`run.waiting` kind `refusal` or `content_filter`, with the refusal's own words);
 *   `resume(runId, { input })` answers it and the run goes on, `resume(runId, { close })` ends
 *   it `refused`. A refusal is never an answer, so it never reaches the gate;
 * - a tool call the output limit cut (`tool-call-truncated`): it is not run; the turn goes
 *   on with a note telling the model to call again with shorter arguments, journaled with
 *   the request (`truncationDrafts`), until too many responses in a row were cut;
 * - stop reason `max_tokens`: the turn goes on (request again in the same turn), for
 *   `maxTokensContinuations` responses in a row; one more ends the run `escalated`;
 * - `pause`: the turn goes on;
 * - `end_turn` (and anything else): with an `output` schema, the answer must be JSON that
 *   the schema accepts first (else it goes back to the model, `outputRetries` times, then the
 *   run ends `verification_failed`); then the gates decide (`gate` of each participant; the
 *   verifier gate, `runGate`, when there is a verifier or a check); with no
 *   verifier and no check, the run ends `completed` (unverified), never `verified_success`.
 *   The accepted output is journaled in `run.completed`.
 */
export async function actOnResponse(context: RunContext): Promise<void> {
  const state = context.accumulator.peek();
  const response = lastResponse(state);
  const turnId = currentTurn(state);
  if (isRefusedResponse(response)) {
    const kind = response.stopReason === "content_filter" ? "content_filter" : "refusal";
    context.logger.info({ turnId, kind }, "the model refused: the run waits for a person");
    return commitTurn(context, [
      { type: "run.waiting", at: context.deps.clock.now(), causationId: turnId, data: { turnId, kind, reason: refusalReason(response) } },
    ]);
  }
  const truncation = truncationDrafts(context, state);
  if (truncation.kind === "end") return commitTurn(context, [runCompleted(context, state, truncation.outcome)]);
  if (truncation.kind === "note") {
    const turn = Turn.open(context);
    const noted = turn.add([truncation.draft]);
    turn.add(requestDrafts(turn, noted, turnId));
    return turn.commit();
  }
  switch (response.stopReason) {
    case "max_tokens": {
      const { count } = context.facts.maxTokens;
      const limit = context.deps.loopControl.maxTokensContinuations;
      if (count > limit) {
        const reason = `the model hit its output token limit in ${count} responses in a row in one turn (continued ${limit} times); raise the model's output limit or ask for smaller steps`;
        return commitTurn(context, [runCompleted(context, state, { status: "escalated", reason })]);
      }
      return commitRequest(context, turnId);
    }
    case "pause":
      return commitRequest(context, turnId);
    default: {
      // An input interrupt sent before the answer came is never dropped: the model sees it and answers again.
      const interrupts = landInputDrafts(context, turnId);
      if (interrupts.length > 0) {
        return commitWithNextTurn(context, interrupts);
      }
      let output: JsonValue | undefined;
      if (context.deps.output !== undefined) {
        const verdict = await judgeAnswer(context.deps.output, response);
        if (!verdict.ok) return rejectAnswer(context, context.deps.output, state, turnId, verdict.reason);
        output = verdict.json;
      }
      // The gates judge the answer in list order; the first that decides has committed what comes next.
      const answer = { state, response, turnId, output };
      const commits: GateCommits = {
        commit: (drafts) => commitTurn(context, drafts),
        next: (drafts) => commitWithNextTurn(context, drafts),
        settle: (ended) => settleWork(context, ended),
      };
      for (const gate of HOOKS.gate) if ((await gate(context, answer, commits)) === "decided") return;
      return commitTurn(context, [runCompleted(context, state, { status: "completed" }, output)]);
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
    return commitWithNextTurn(context, [checked, note]);
  }
  return commitTurn(context, [checked, runCompleted(context, state, { status: "verification_failed", reason: why })]);
}

/** The same turn asks again: a new request of turn `turnId`, built from the live state. */
function commitRequest(context: RunContext, turnId: string): Promise<void> {
  const turn = Turn.open(context);
  turn.add(requestDrafts(turn, turn.state, turnId));
  return turn.commit();
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
