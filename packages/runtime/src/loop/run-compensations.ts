import { validateWithSchema, type YokeEventDraft } from "@yoke/protocol";
import { BatchTransaction, pendingCompensations } from "@yoke/scheduler";
import type { RunContext } from "../run-context.js";
import { commitWithNextTurn } from "./next-turn.js";
import { escalate } from "./escalation.js";
import { admittedDeclaration } from "../tool-admission.js";

/** True when the batch has compensations journaled as started and not ended. */
export function hasPendingCompensations(context: RunContext): boolean {
  return context.accumulator.peek().actions.some((action) => action.status.state === "compensating");
}

/**
 * Phase `ready` with compensations pending: runs each, in reverse order of commit (the
 * order `action.compensating` was planned in), once, and commits their ends with the next
 * turn's request. A failed compensation ends the run `escalated`. After a crash they run
 * again under the same idempotency key (`<actionId>:compensate`).
 */
export async function runCompensations(context: RunContext): Promise<void> {
  const state = context.accumulator.peek();
  const batch = new BatchTransaction({
    clock: context.deps.clock,
    ids: context.deps.ids,
    records: state.actions,
    fencingToken: context.lease?.current().token,
  });
  const signal = context.signal ?? new AbortController().signal;
  for (const record of pendingCompensations(state.actions)) {
    // The revision the action ran under undoes it (a run with pinned tools), never the live one.
    const tool =
      record.toolRevision === undefined
        ? context.deps.tools.get(record.toolName)
        : await admittedDeclaration(context, state, record.toolName, record.toolRevision, record.actionId);
    const parsed = tool === undefined ? undefined : await validateWithSchema(tool.input, record.input).catch(() => undefined);
    const settlement = tool
      ? await batch.compensate(record, tool, parsed?.ok ? parsed.value : record.input, signal)
      : ({ kind: "escalate", actionId: record.actionId, reason: `${record.toolName} is not a tool of this harness; its compensation cannot run` } as const);
    context.logger.info({ toolName: record.toolName, actionId: record.actionId, outcome: settlement.kind }, "compensation ran");
    if (settlement.kind === "escalate") return escalate(context, batch.drain(), settlement);
  }
  const drafts: YokeEventDraft[] = batch.drain();
  await commitWithNextTurn(context, drafts);
}
