import type { ModelResponse, Outcome, RunState, TruncatedToolCallPart, YokeEventDraft } from "@yoke/protocol";
import type { RunContext } from "../run-context.js";
import type { TurnParticipant } from "../turn/participant.js";
import { runCompleted } from "./run-completed.js";

/** The journaled source of the note that tells the model the output limit cut its call. */
export const OUTPUT_LIMIT_SOURCE = "output-limit";

/** The tool calls of a response that the output limit cut off (never run, never sent back as calls). */
export function truncatedCallsOf(response: Pick<ModelResponse, "content">): TruncatedToolCallPart[] {
  return response.content.filter((part): part is TruncatedToolCallPart => part.type === "tool-call-truncated");
}

/**
 * How many of the run's last responses in a row had a call cut by the output limit: the
 * assistant messages counted back from the newest until one without a cut call. A pure
 * function of the transcript, so a resume counts as the uninterrupted run did.
 */
export function consecutiveTruncations(state: RunState): number {
  let count = 0;
  // Message 0 is the run's task, never an assistant message.
  for (let index = state.messages.length - 1; index >= 0; index--) {
    const message = state.messages[index]!;
    if (message.role !== "assistant") continue;
    if (!message.content.some((part) => part.type === "tool-call-truncated")) break;
    count += 1;
  }
  return count;
}

/**
 * The note that goes back to the model after a response whose calls were cut, one line per
 * cut call, in proposal order. Deterministic: the same parts give the same text.
 *
 * @example
 * ```ts
 * truncationNote([{ type: "tool-call-truncated", toolCallId: "call_2", toolName: "write_file", rawArguments: '{"pa' }]);
 * // "[runtime] The output token limit cut off your call to write_file (call call_2) before its arguments
 * //  were complete, so it was not run. Call it again with shorter arguments (split large content over several calls)."
 * ```
 */
export function truncationNote(calls: readonly TruncatedToolCallPart[]): string {
  return calls
    .map(
      (call) =>
        `[runtime] The output token limit cut off your call to ${call.toolName} (call ${call.toolCallId}) before its arguments were complete, so it was not run. Call it again with shorter arguments (split large content over several calls).`,
    )
    .join("\n");
}

/**
 * What follows a response with cut calls, once its complete calls (if any) have their
 * results: the note for the model (`input.added`, source `output-limit`), or, when this is
 * the `truncatedCallRetries + 1`-th response in a row with a cut call, the run's end
 * (`escalated`: the model cannot fit its call in the output limit, a person has to raise the
 * limit or change the task). Nothing when the last response has no cut call, or when its
 * note is already in the transcript. `state` may hold drafts of a turn not yet committed.
 */
export function truncationDrafts(
  context: RunContext,
  state: RunState,
): { kind: "none" } | { kind: "note"; draft: YokeEventDraft } | { kind: "end"; outcome: Outcome } {
  const response = state.lastResponse;
  const calls = response === undefined ? [] : truncatedCallsOf(response);
  if (calls.length === 0) return { kind: "none" };
  const text = truncationNote(calls);
  if (noteAfterLastResponse(state, text)) return { kind: "none" };
  const count = consecutiveTruncations(state);
  const names = calls.map((call) => call.toolName).join(", ");
  context.logger.warn({ turnId: state.currentTurnId, toolName: names, count }, "the output limit cut a tool call");
  if (count > context.deps.truncatedCallRetries) {
    const reason = `the output token limit cut the model's tool call in ${count} responses in a row (last: ${names}); raise the model's output limit or ask for smaller steps`;
    return { kind: "end", outcome: { status: "escalated", reason } };
  }
  const draft: YokeEventDraft = {
    type: "input.added",
    at: context.deps.clock.now(),
    causationId: state.currentTurnId ?? null,
    data: { source: OUTPUT_LIMIT_SOURCE, content: [{ type: "text", text }] },
  };
  return { kind: "note", draft };
}

/** Whether the transcript already holds `note` after the last assistant message. */
function noteAfterLastResponse(state: RunState, note: string): boolean {
  // The cut calls' response is an assistant message of the transcript: the walk back stops there.
  for (let index = state.messages.length - 1; index >= 0; index--) {
    const message = state.messages[index]!;
    if (message.role === "assistant") return false;
    if (message.role === "user" && message.content.length === 1 && message.content[0]!.type === "text" && message.content[0]!.text === note) return true;
  }
  return false;
}

/** A response that also had complete calls has their results at the boundary: now the cut ones get their note, or the run ends. */
export const outputLimit: TurnParticipant = {
  name: "output limit",
  boundary: (context, state) => {
    const truncation = truncationDrafts(context, state);
    if (truncation.kind === "end") return { end: [runCompleted(context, state, truncation.outcome)] };
    return truncation.kind === "note" ? { note: [truncation.draft] } : undefined;
  },
};
