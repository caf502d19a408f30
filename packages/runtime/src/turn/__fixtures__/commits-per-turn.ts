import type { RunContext } from "../../run-context.js";
import type { TurnParticipant } from "../participant.js";

/**
 * A test-only participant: counts the commits of each turn. A commit belongs to the turn that
 * was current before it (the run's first commit to `(start)`), so a turn's count runs from
 * the commit after the one that started it up to the one that starts the next turn or ends
 * the run.
 */
export function commitsPerTurn(): { readonly participant: TurnParticipant; readonly counts: Map<string, number> } {
  const counts = new Map<string, number>();
  const current = new WeakMap<RunContext, string>();
  const participant: TurnParticipant = {
    name: "commits per turn (test)",
    committed: (context) => {
      const owner = current.get(context) ?? "(start)";
      counts.set(owner, (counts.get(owner) ?? 0) + 1);
      const turnId = context.accumulator.peek().currentTurnId;
      if (turnId !== undefined) current.set(context, turnId);
    },
  };
  return { participant, counts };
}
