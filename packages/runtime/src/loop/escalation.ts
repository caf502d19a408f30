import type { YokeEventDraft } from "@yoke/protocol";
import type { RunContext } from "../run-context.js";
import { Turn } from "../turn/turn.js";
import { runCompleted } from "./run-completed.js";

/** The action the run stops on, and any other action left uncertain in the same batch. */
export type Escalation = { readonly actionId: string; readonly reason: string; readonly others?: readonly string[] };

/** The run escalates on the first action nobody can settle; the others are named with it. */
export function alsoEscalated(first: Escalation | undefined, next: Escalation): Escalation {
  return first === undefined ? next : { ...first, others: [...(first.others ?? []), next.actionId] };
}

/** Ends the run `escalated`, naming the action whose outcome nobody can establish. */
export async function escalate(context: RunContext, drafts: readonly YokeEventDraft[], escalation: Escalation): Promise<void> {
  const turn = Turn.open(context);
  const state = turn.add(drafts);
  const others = escalation.others ?? [];
  const reason = others.length === 0 ? escalation.reason : `${escalation.reason}; also left uncertain: ${others.join(", ")}`;
  context.logger.warn({ actionId: escalation.actionId, others }, "run escalated");
  turn.add([runCompleted(context, state, { status: "escalated", reason, actionId: escalation.actionId })]);
  await turn.commit();
}
