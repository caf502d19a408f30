import type { PendingToolCall, RunState, ToolCallPart, YokeEventDraft } from "@yoke/protocol";
import type { RunContext } from "../run-context.js";
import { errorEnvelope } from "../tool-executor.js";

/** How much of a model-chosen call id the answer quotes: enough to find it, never a flood of its own. */
const QUOTED_ID_CHARS = 64;

/**
 * The one answer to a response's calls past the run's `maxToolCallsPerTurn`: a
 * `tool.excess_rejected` (TOOL_CALL_LIMIT) for the pending calls from `fromIndex` to the last,
 * or `undefined` when there are none (no cap, or within it). Its size does not grow with how
 * many calls the model proposed (one envelope; ids clipped), and the fold leaves all but the
 * first out of the conversation: 2,000 calls cost the next request what 65 do.
 *
 * `pending` are the response's calls not yet answered; the answer covers them only when those
 * past the cap are the response's last calls and none was admitted (always so for calls judged
 * with their response; a journal cut otherwise gets `undefined`, and each call its own verdict).
 */
export function excessCallsDraft(
  context: RunContext,
  state: RunState,
  calls: readonly ToolCallPart[],
  pending: readonly Pick<PendingToolCall, "index" | "actionId" | "started">[],
  turnId: string,
): YokeEventDraft | undefined {
  const cap = state.maxToolCallsPerTurn;
  if (cap === undefined || calls.length <= cap) return undefined;
  const past = pending.filter((call) => call.index >= cap);
  if (past.length !== calls.length - cap || past.some((call) => call.actionId !== undefined || call.started !== undefined)) return undefined;
  const first = calls[cap]!;
  const count = calls.length - cap;
  const others = count === 1 ? "" : ` and the ${count - 1} after it (up to id ${quote(calls.at(-1)!.toolCallId)})`;
  const message =
    `this response proposed ${calls.length} tool calls and a turn runs at most ${cap}: this call (number ${cap + 1})${others} ` +
    `${count === 1 ? "was" : "were"} not run, and the calls after this one are left out of the conversation; propose fewer calls per response, the most important first`;
  const at = context.deps.clock.now();
  context.logger.info({ turnId, proposed: calls.length, limit: cap, rejected: count }, "tool calls past the limit rejected");
  return {
    type: "tool.excess_rejected",
    at,
    causationId: turnId,
    data: {
      turnId,
      toolCallId: first.toolCallId,
      toolName: first.toolName,
      fromIndex: cap,
      count,
      code: "TOOL_CALL_LIMIT",
      result: errorEnvelope("TOOL_CALL_LIMIT", message, at, context.deps.clock),
    },
  };
}

function quote(id: string): string {
  return JSON.stringify(id.length > QUOTED_ID_CHARS ? `${id.slice(0, QUOTED_ID_CHARS)}…` : id);
}
