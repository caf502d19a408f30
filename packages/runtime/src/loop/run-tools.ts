import type { YokeEventDraft } from "@yoke/protocol";
import { BatchTransaction, compensationPlan, type AttemptOutcome, type DispatchItem } from "@yoke/scheduler";
import { boundResults } from "../bound-output.js";
import type { RunContext } from "../run-context.js";
import { Turn, commitTurn } from "../turn/turn.js";
import { errorEnvelope } from "../tool-executor.js";
import { attemptAuthorizer } from "../reauthorize.js";
import { pinnedRevision } from "../pinned-tools.js";
import { addNextTurn } from "./next-turn.js";
import { alsoEscalated, escalate, type Escalation } from "./escalation.js";
import { recoverCalls } from "./recover-calls.js";
import { pollInterrupts } from "../interrupts.js";
import { isExhaustion } from "../budget/run-budget.js";
import { reserveAhead, reserveAttemptRun } from "../budget/budget-participant.js";
import { settleWork } from "../turn/settle.js";
import { contextInputOf } from "../request-builder.js";

/**
 * Phase `tools_pending`: dispatch the leased attempts and commit, in one transaction, every
 * outcome (in proposal order) and the next turn's start and request — two durable commits
 * per tool turn. Paths that leave the happy one cost a commit each: a retry (the failed
 * attempt with the next one's lease), a compensation (see `runCompensations`), a resume.
 *
 * A resume first brings the actions a dead process journaled to where they can go on, in a
 * commit of its own before anything is dispatched: `executing` without an outcome becomes
 * `uncertain` and is reconciled (applied → committed; not applied → a new attempt; unknown →
 * the run ends `escalated`, naming the action). Nothing is ever retried blindly.
 */
export async function runTools(context: RunContext): Promise<"waiting" | undefined> {
  for (;;) {
    const state = context.accumulator.peek();
    // A guard: the loop calls runTools in tools_pending, and every `continue` below follows a commit that leaves the
    // batch pending (a recovery its turn folded, a retry round, calls still parked); as false it is equivalent.
    if (state.phase !== "tools_pending") return undefined;
    const batch = new BatchTransaction({
      clock: context.deps.clock,
      ids: context.deps.ids,
      records: state.actions,
      signal: context.signal,
      // Every attempt leased after admission is decided under the policy in force then (reauthorize.ts).
      authorizeAttempt: attemptAuthorizer(context),
      fencingToken: context.lease?.current().token,
    });
    const recovered = await recoverCalls(context, state, batch);
    if (recovered.escalation) {
      await escalateBatch(context, batch, recovered.drafts, recovered.items, recovered.escalation);
      return undefined;
    }
    if (recovered.drafts.length > 0) {
      const turn = Turn.open(context);
      let after = turn.add(recovered.drafts);
      // Reservations of the attempts the recovery settled are settled with them.
      const stale = settleWork(context, { kind: "superseded_attempts", state: after }).carry([]);
      // Adding no drafts changes nothing: the test (as `true` or `>=`) is equivalent, it only skips the call.
      if (stale.length > 0) after = turn.add(stale);
      // The recovery settled the batch's last actions: the batch ends here as after a dispatch.
      if (after.phase !== "tools_pending") {
        await endBatch(context, batch, turn);
        return undefined;
      }
      // Attempts the recovery leased (approved calls, new attempts, another writer's calls) reserve now, before their dispatch.
      turn.add(reserveAhead(context, recovered.items));
      turn.afterCommit(() => {
        for (const item of recovered.items) context.dispatchable.set(item.attemptId, item);
      });
      await turn.commit();
      continue;
    }
    const items = state.pendingToolCalls.flatMap((call) => (call.started ? [context.dispatchable.get(call.started.attemptId)!] : []));
    // Nothing to dispatch and nothing recovered: every pending call waits for a person (parked
    // for approval, or held behind a parked call it conflicts with).
    if (items.length === 0) return "waiting";
    // Every attempt reserved before it was leased durably; one that could not (its reservation did not fit then) tries now,
    // journaled with its outcome, and is not dispatched when it still does not fit.
    const { admitted: dispatched, drafts: reservations } = await reserveLeased(context, batch, items);
    const run = { tenantId: context.scope.tenantId, sessionId: state.sessionId, runId: context.scope.runId };
    // What a child spawned in this batch forks from: the request the model answered with the batch's calls. The delete
    // after the batch frees the run's context.
    const forks = context.deps.subagents?.forkSources;
    forks?.set(run.runId, { manifest: context.compiled.manifest, input: () => contextInputOf(context, context.accumulator.peek()) });
    const outcomes = await context.deps.executor
      .executeAll(dispatched, toolSignal(context), context.lease === undefined ? { run } : { fencingToken: context.lease.current().token, run })
      .finally(() => forks?.delete(run.runId));
    const retries: DispatchItem[] = [];
    const deferred: DispatchItem[] = [];
    let escalation: Escalation | undefined;
    // Each attempt's charge: a tool operation and its share of the batch's wall time, settled on its outcome.
    const charges = settleWork(context, {
      kind: "tool_attempts",
      attempts: dispatched.flatMap((item, position) => {
        const outcome = outcomes[position]!;
        return outcome.kind === "deferred" ? [] : [{ attemptId: item.attemptId, dispatched: outcome.kind !== "failed" || outcome.dispatched }];
      }),
    });
    for (const [position, item] of dispatched.entries()) {
      const outcome = outcomes[position]!;
      if (outcome.kind === "deferred") {
        deferred.push(item);
        continue;
      }
      const settlement = await batch.settle(item, outcome);
      const result = outcome.kind === "uncertain" ? undefined : outcome.result;
      context.logger.info(
        {
          toolName: item.tool.name,
          actionId: item.actionId,
          attempt: item.attempt,
          outcome: outcome.kind,
          status: result?.status,
          code: result?.error?.code,
          durationMs: result?.timing.durationMs,
        },
        "tool call completed",
      );
      if (settlement.kind === "retry") retries.push(settlement.item);
      if (settlement.kind === "escalate") escalation = alsoEscalated(escalation, settlement);
    }
    // A settled attempt never comes back (a retry is a new attempt id); a deferred one is dispatched in the next round.
    for (const item of items) if (!deferred.includes(item)) context.dispatchable.delete(item.attemptId);
    // Results past the run's event limit go to the artifact store (durable first) or become errors.
    // A reservation made at dispatch comes before the outcome its settlement rides on.
    let drafts = charges.carry([...reservations, ...(await boundResults(context, batch.drain()))]);
    // Retries reserve now, on their `action.executing`: durable before their dispatch in the next round.
    if (!escalation) drafts = reserveAhead(context, retries, drafts);
    if (escalation) {
      await escalateBatch(context, batch, drafts, [...retries, ...deferred], escalation);
      return undefined;
    }
    // A deferred call waits for an earlier one to settle: for a retry (in `retries`) or an uncertain outcome (which
    // escalated above).
    if (retries.length > 0 || deferred.length > 0) {
      // Another round: the retries, and the calls that waited for them, in proposal order.
      // Never empty here (the failure a retry follows, or the outcome a deferred call waited for, is in it): the
      // guard is defensive; an empty append would be refused.
      if (drafts.length > 0) await commitTurn(context, drafts);
      for (const item of retries) context.dispatchable.set(item.attemptId, item);
      continue;
    }
    const turn = Turn.open(context);
    const settled = turn.add(drafts);
    if (settled.phase === "tools_pending") {
      // Calls parked for approval (or held behind one) are still pending: the batch goes on without them.
      await turn.commit();
      continue;
    }
    await endBatch(context, batch, turn);
    return undefined;
  }
}

/**
 * Commits the batch's last outcomes (in `turn`, whose live state has them) with what follows
 * them: when an action with an effect failed for good, the start of the compensations
 * (`compensationPlan`); otherwise the next turn's start and request. Whether the last outcome
 * came from a dispatch or from a resume's reconciliation, the same rule applies.
 */
async function endBatch(context: RunContext, batch: BatchTransaction, turn: Turn): Promise<void> {
  const settled = turn.state;
  // In a run with pinned tools, the contract of the revision each action ran under says whether
  // it can be undone: journaled data, whichever process admitted the action.
  // (As `false`, equivalent: a run pins all its actions' revisions or none, and an undefined revision falls back to
  // the live tool, as an absent one does.)
  const admitted = new Map(settled.actions.flatMap((action) => (action.toolRevision === undefined ? [] : [[action.toolName, action.toolRevision] as const])));
  const undo = compensationPlan(settled.actions, (name) => {
    const revision = admitted.get(name);
    if (revision === undefined) return context.deps.tools.get(name);
    const { contract } = pinnedRevision(settled, name, revision);
    // compensationPlan asks only whether `compensate` is there.
    return { sideEffect: contract.sideEffect, ...(contract.compensator ? { compensate: true } : {}) };
  });
  if (undo.length > 0) {
    batch.beginCompensation(undo, "an action of the same batch failed");
    turn.add(batch.drain());
    return turn.commit();
  }
  // The turn boundary: interrupts sent while the batch ran land now, with its results (loop's interrupts.ts).
  await pollInterrupts(context);
  addNextTurn(turn);
  return turn.commit();
}

/**
 * Ends the run `escalated` from inside a batch. Attempts leased but not dispatched (retries,
 * calls deferred behind an earlier one) never run: each is journaled as failed, not
 * dispatched, so no action of the finished run is left `executing`.
 */
async function escalateBatch(
  context: RunContext,
  batch: BatchTransaction,
  drafts: readonly YokeEventDraft[],
  leased: readonly DispatchItem[],
  escalation: Escalation,
): Promise<void> {
  const at = context.deps.clock.now();
  const why = "the run escalated before this attempt was dispatched; it did not run";
  const outcome: AttemptOutcome = { kind: "failed", result: errorEnvelope("CANCELLED", why, at, context.deps.clock), retryable: false, dispatched: false };
  const released = settleWork(context, { kind: "tool_attempts", attempts: leased.map((item) => ({ attemptId: item.attemptId, dispatched: false })) });
  for (const item of leased) {
    await batch.settle(item, outcome);
    // The run ends here; the entry goes with the attempt.
    context.dispatchable.delete(item.attemptId);
  }
  const settled = released.carry([...drafts, ...batch.drain()]);
  // Whatever else still holds a reservation was dispatched and is left as the escalation says: charged.
  return escalate(context, settleWork(context, { kind: "open_attempts" }).carry(settled), escalation);
}

/**
 * Reserves the dispatch of each leased attempt that holds no reservation yet; one that does
 * not fit is settled as failed, not dispatched (BUDGET_EXHAUSTED, not retryable), and left out.
 */
async function reserveLeased(
  context: RunContext,
  batch: BatchTransaction,
  items: readonly DispatchItem[],
): Promise<{ admitted: DispatchItem[]; drafts: YokeEventDraft[] }> {
  const admitted: DispatchItem[] = [];
  const drafts: YokeEventDraft[] = [];
  const turnId = context.accumulator.peek().currentTurnId;
  for (const item of items) {
    const reserved = reserveAttemptRun(context, item, turnId);
    if (!isExhaustion(reserved)) {
      drafts.push(...reserved);
      admitted.push(item);
      continue;
    }
    const at = context.deps.clock.now();
    const why = `the run's budget has no room for this attempt (${reserved.budget}, limit ${reserved.limit}); it was not dispatched`;
    await batch.settle(item, { kind: "failed", result: errorEnvelope("BUDGET_EXHAUSTED", why, at, context.deps.clock), retryable: false, dispatched: false });
    // The batch's end deletes every item's entry but a deferred one's anyway; a settled attempt never comes back.
    context.dispatchable.delete(item.attemptId);
  }
  return { admitted, drafts };
}

/** What tools are cancelled by: the run's signal, and the loss of the run's lease. */
function toolSignal(context: RunContext): AbortSignal | undefined {
  if (context.lease === undefined) return context.signal;
  return context.signal === undefined ? context.lease.lost : AbortSignal.any([context.signal, context.lease.lost]);
}
