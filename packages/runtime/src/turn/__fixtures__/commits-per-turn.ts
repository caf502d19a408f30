import type { RunContext } from "../../run-context.js";
import type { EndedAttempt, TurnParticipant } from "../participant.js";

/**
 * A test-only participant: counts the commits of each turn. A commit belongs to the turn that
 * was current before it (the run's first commit to `(start)`), so a turn's count runs from
 * the commit after the one that started it up to the one that starts the next turn or ends
 * the run. It also keeps every tool attempt whose work ended (`settle`), settling nothing.
 */
export function commitsPerTurn(): { readonly participant: TurnParticipant; readonly counts: Map<string, number>; readonly ended: EndedAttempt[] } {
  const counts = new Map<string, number>();
  const ended: EndedAttempt[] = [];
  const current = new WeakMap<RunContext, string>();
  const participant: TurnParticipant = {
    name: "commits per turn (test)",
    committed: (context) => {
      const owner = current.get(context) ?? "(start)";
      counts.set(owner, (counts.get(owner) ?? 0) + 1);
      const turnId = context.accumulator.peek().currentTurnId;
      if (turnId !== undefined) current.set(context, turnId);
    },
    settle: (_context, work) => {
      if (work.kind === "tool_attempts") ended.push(...work.attempts);
      return undefined;
    },
  };
  return { participant, counts, ended };
}
