import { newId, type YokeEventDraft } from "@yoke/protocol";
import { requestDrafts } from "../request-builder.js";
import type { RunContext } from "../run-context.js";
import { offerTurn } from "../tool-admission.js";
import { HOOKS } from "../turn/hooks.js";
import { Turn } from "../turn/turn.js";

export { cancelledOutcome, runCompleted } from "./run-completed.js";

/**
 * What moves a run on at a turn boundary, added to `turn` (whose live state may already hold
 * the events that led here, so the next turn shares their transaction): the participants
 * decide first, in their declared order (`TURN_PARTICIPANTS`), whether the run ends here or
 * which notes the next request carries; then the next `turn.started` and its
 * `model.requested`. A run with pinned tools journals in `turn.started.offered` the tools
 * discovery offers the turn; its requests offer exactly those.
 */
export function addNextTurn(turn: Turn): void {
  const { context } = turn;
  const state = turn.state;
  const notes: YokeEventDraft[] = [];
  const hooks = HOOKS.boundary;
  for (let index = 0; index < hooks.length; index++) {
    const step = hooks[index]!(context, state);
    if (step === undefined) continue;
    if ("end" in step) {
      turn.add(step.keepNotes === true ? [...notes, ...step.end] : step.end);
      return;
    }
    notes.push(...step.note);
  }
  // A shortcut: adding no drafts leaves the state as it is.
  const current = notes.length === 0 ? state : turn.add(notes);
  const turnId = newId(context.deps.ids, "turn");
  // A run with pinned tools offers the turn what discovery gives now, frozen for the turn.
  const offered = offerTurn(context, current);
  const started: YokeEventDraft = {
    type: "turn.started",
    at: context.deps.clock.now(),
    causationId: turnId,
    data: { turnId, index: current.turns + 1, ...(offered === undefined ? {} : { offered: { digest: offered.digest, tools: offered.tools.slice() } }) },
  };
  // Both built from the state before the turn starts (the request reserves the turn it starts), then folded together.
  turn.add([started, ...requestDrafts(turn, current, turnId, offered)]);
}

/** `drafts`, then whatever the boundary after them leads to, in one turn: the transaction of a step that ends a turn. */
export async function commitWithNextTurn(context: RunContext, drafts: readonly YokeEventDraft[]): Promise<void> {
  const turn = Turn.open(context);
  turn.add(drafts);
  addNextTurn(turn);
  await turn.commit();
}
