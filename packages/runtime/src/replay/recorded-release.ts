import type { YokeEventDraft } from "@yoke/protocol";
import type { RunContext } from "../run-context.js";
import { commitTurn } from "../turn/turn.js";
import type { ReplayTape } from "./replay-tape.js";

/**
 * A replay's release step on resume: the record's `release.changed`, or its `release.migrated`
 * with the events the migration journaled, appended as recorded where the recorded resume
 * appended them (they say under which release the recorded process drove the run: an input
 * of the replay, like a person's approval); nothing where the record holds none. The release
 * the replay itself runs under is never checked against the pinned one: the replay compares
 * what the current code journals, whatever release it is.
 */
export function recordedRelease(tape: ReplayTape): (context: RunContext) => Promise<void> {
  return async (context) => {
    const { runId } = context.scope;
    const events = tape.events(runId);
    const at = context.accumulator.peek().length;
    const next = events[at];
    if (next === undefined || (next.type !== "release.changed" && next.type !== "release.migrated")) return;
    const count = next.type === "release.migrated" ? 1 + (next.data as { events: number }).events : 1;
    const drafts = events
      .slice(at, at + count)
      .map((event) => ({ type: event.type, at: event.at, causationId: event.causationId, data: event.data }) as YokeEventDraft);
    await commitTurn(context, drafts);
  };
}
