import type { YokeEvent } from "./events.js";
import { invalid } from "./fold-invalid.js";
import type { MutableRunState } from "./run-state-types.js";

/*
 * The fold's part for tool revisions: a run calls the revision its snapshot pinned, a drift
 * blocks a tool until a `tool.readmitted` pins another revision, and an action may only name
 * a revision the run pins. The maps are replaced, never mutated, so a state snapshot taken
 * earlier keeps what it saw.
 */

/** Folds `tool.drifted` and `tool.readmitted`. */
export function applyToolRevisionEvent(state: MutableRunState, event: Extract<YokeEvent, { type: "tool.drifted" | "tool.readmitted" }>): void {
  const { toolName } = event.data;
  const drifted = new Map(state.driftedTools);
  if (event.type === "tool.drifted") {
    if (event.data.pinned !== null && state.pinnedTools.get(toolName)?.digest !== event.data.pinned) {
      throw invalid(event, `tool.drifted names revision ${event.data.pinned} of ${toolName}, which the run does not pin`);
    }
    drifted.set(toolName, event.data);
  } else {
    if (event.data.revision.name !== toolName) throw invalid(event, "tool.readmitted names a revision of another tool");
    state.pinnedTools = new Map(state.pinnedTools).set(toolName, event.data.revision);
    drifted.delete(toolName);
  }
  state.driftedTools = drifted;
}

/** Refuses an `action.proposed` / `action.admitted` naming a revision of its tool that the run does not pin. */
export function checkPinnedRevision(
  state: MutableRunState,
  event: Extract<YokeEvent, { type: "action.proposed" | "action.admitted" | "action.approval_requested" }>,
): void {
  const revision = event.data.toolRevision;
  if (revision !== undefined && state.pinnedTools.get(event.data.toolName)?.digest !== revision) {
    throw invalid(event, `${event.type} names revision ${revision} of ${event.data.toolName}, which the run does not pin`);
  }
}

/**
 * Folds the calls `tool.excess_rejected` answers together: checks they are exactly the
 * response's calls from `fromIndex` on, none started, and takes all but the first out of the
 * pending calls and out of the response's assistant message (replaced, never mutated), so no
 * call is shown to the model without its result. Returns the pending index of the first,
 * which the caller resolves with the event's result.
 */
export function dropExcessCalls(state: MutableRunState, event: Extract<YokeEvent, { type: "tool.excess_rejected" }>): number {
  if (state.phase !== "tools_pending") throw invalid(event, `${event.type} in phase ${state.phase}`);
  const { fromIndex, count, toolCallId } = event.data;
  const end = fromIndex + count;
  const excess = state.pendingToolCalls.filter((call) => call.index >= fromIndex && call.index < end);
  const total = state.pendingToolCalls.reduce((most, call) => Math.max(most, call.index + 1), 0);
  if (
    excess.length !== count ||
    end < total ||
    excess.some((call) => call.actionId !== undefined || call.started !== undefined) ||
    excess.find((call) => call.index === fromIndex)?.toolCallId !== toolCallId
  ) {
    throw invalid(event, `tool.excess_rejected names calls ${fromIndex}–${end - 1}, which are not the response's last pending calls`);
  }
  state.pendingToolCalls = state.pendingToolCalls.filter((call) => call.index <= fromIndex || call.index >= end);
  const at = state.messages.findLastIndex((message) => message.role === "assistant");
  const message = state.messages[at];
  if (message?.role === "assistant") {
    let ordinal = -1;
    const content = message.content.filter((part) => part.type !== "tool-call" || ++ordinal <= fromIndex);
    state.messages[at] = { ...message, content };
  }
  return state.pendingToolCalls.findIndex((call) => call.index === fromIndex);
}
