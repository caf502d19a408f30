import type { ToolCallPart, YokeEventDraft } from "@yoke/protocol";
import type { RunContext } from "../run-context.js";
import { errorEnvelope } from "../tool-executor.js";

/**
 * `tool.rejected` for a call of `turnId` that will not run: its code, and the error envelope
 * the model is shown in its place, both stamped with this clock time.
 */
export function rejectedCall(
  context: RunContext,
  turnId: string,
  call: Pick<ToolCallPart, "toolCallId" | "toolName">,
  code: Parameters<typeof errorEnvelope>[0],
  message: string,
): YokeEventDraft {
  const at = context.deps.clock.now();
  return {
    type: "tool.rejected",
    at,
    causationId: turnId,
    data: { turnId, toolCallId: call.toolCallId, toolName: call.toolName, code, result: errorEnvelope(code, message, at, context.deps.clock) },
  };
}
