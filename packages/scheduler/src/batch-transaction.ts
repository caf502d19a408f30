import {
  YokeError,
  newId,
  type ActionRecord,
  type Clock,
  type IdSource,
  type JsonValue,
  type PolicyDecision,
  type AnyToolDeclaration,
  type YokeErrorCode,
} from "@yoke/protocol";
import { ActionBook, type ActionEventDraft } from "./action-book.js";
import { askReconciler } from "./ask-reconciler.js";
import {
  DEFAULT_AUTHORIZATION,
  authorizationData,
  decidedData,
  refusalData,
  type AttemptAuthorizer,
  type Authorization,
  type Refusal,
} from "./attempt-authorization.js";
import { errorEnvelope, messageOf } from "./envelopes.js";
import { maxAttempts, retriesAfter, type AttemptOutcome, type DispatchItem } from "./attempts.js";
import type { ApprovalRequest, BatchTransactionOptions, ProposedCall, Settlement } from "./batch-types.js";

export { DEFAULT_MAX_ATTEMPTS, maxAttempts } from "./attempts.js";

/**
 * The reason of the `action.uncertain` a resume journals for an attempt that was executing
 * when its process stopped: what tells a reader (replay) that no outcome ever came back for it.
 */
export const STOPPED_AFTER_DISPATCH = "the process stopped after dispatch, before the outcome was journaled";
export { DEFAULT_AUTHORIZATION } from "./attempt-authorization.js";
export type { AttemptAuthorization, AttemptAuthorizationRequest, AttemptAuthorizer, Authorization } from "./attempt-authorization.js";
export type { ApprovalRequest, BatchTransactionOptions, ProposedCall, Settlement } from "./batch-types.js";

/**
 * The action transaction for one batch (one response's accepted calls). It stages every
 * transition through an `ActionBook`, so only legal ones are journaled; the caller decides
 * how staged drafts are grouped into appends (the runtime commits everything up to
 * `executing` with the response, and outcomes with the next request).
 *
 * @example
 * ```ts
 * const batch = new BatchTransaction({ clock, ids });
 * const item = batch.admit({ turnId, toolCallId, tool, input, value });
 * await journal.append(scope, seq, [responseDraft, ...batch.drain()]); // durable before dispatch
 * const [outcome] = await executeBatch([item], { clock });
 * await batch.settle(item, outcome!);
 * await journal.append(scope, seq2, [...batch.drain(), ...nextRequestDrafts]);
 * ```
 */
export class BatchTransaction {
  readonly #clock: Clock;
  readonly #ids: IdSource;
  readonly #book: ActionBook;
  readonly #signal: AbortSignal | undefined;
  readonly #fencing: { readonly fencingToken?: number };
  readonly #authorizeAttempt: AttemptAuthorizer | undefined;

  constructor(options: BatchTransactionOptions) {
    this.#fencing = options.fencingToken === undefined ? {} : { fencingToken: options.fencingToken };
    this.#clock = options.clock;
    this.#ids = options.ids;
    this.#book = ActionBook.fromRecords(options.records ?? []);
    this.#signal = options.signal;
    this.#authorizeAttempt = options.authorizeAttempt;
  }

  /**
   * Stages proposed → validated → authorized → leased → executing as one `action.admitted`
   * event; returns the attempt to dispatch once it is durable.
   */
  admit(call: ProposedCall, authorization: Authorization = DEFAULT_AUTHORIZATION): DispatchItem {
    const actionId = newId(this.#ids, "action");
    const attemptId = newId(this.#ids, "attempt");
    const at = this.#clock.now();
    const deadlineAt = at + call.tool.timeoutMs;
    this.#stage({
      type: "action.admitted",
      at,
      causationId: call.turnId,
      data: {
        turnId: call.turnId,
        toolCallId: call.toolCallId,
        toolName: call.tool.name,
        actionId,
        input: call.input,
        sideEffect: call.tool.sideEffect,
        decision: "allow",
        ...authorizationData(authorization),
        attemptId,
        attempt: 1,
        deadlineAt,
      },
    });
    return { tool: call.tool, input: call.value, actionId, attemptId, attempt: 1, deadlineAt };
  }

  /**
   * Stages `action.approval_requested` for a call the policy answered `require_approval`: a new
   * action, proposed and validated, parked until a person decides. Returns its action and approval ids.
   */
  park(call: ProposedCall, request: ApprovalRequest): { readonly actionId: string; readonly approvalId: string } {
    const actionId = newId(this.#ids, "action");
    const approvalId = request.approvalId ?? `approval_${actionId.slice("action_".length)}`;
    this.#stage({
      type: "action.approval_requested",
      at: this.#clock.now(),
      causationId: call.turnId,
      data: {
        turnId: call.turnId,
        toolCallId: call.toolCallId,
        toolName: call.tool.name,
        actionId,
        input: call.input,
        sideEffect: call.tool.sideEffect,
        approvalId,
        policy: request.policy,
        provenance: request.provenance.slice(),
        ...(request.influence === undefined ? {} : { influence: request.influence }),
        ...(request.carries === undefined ? {} : { carries: request.carries }),
        ...(request.delegation === undefined ? {} : { delegation: request.delegation }),
        binding: request.binding,
      },
    });
    return { actionId, approvalId };
  }

  /**
   * Stages proposed → validated → authorized for a call that may run but must not start yet
   * (it conflicts with an earlier action parked for approval): nothing is leased, so nothing
   * is `executing` that will not run. `recover` leases it once it may go.
   */
  hold(call: ProposedCall, authorization: Authorization = DEFAULT_AUTHORIZATION): string {
    const actionId = newId(this.#ids, "action");
    const at = this.#clock.now();
    const ref = { turnId: call.turnId, toolCallId: call.toolCallId, toolName: call.tool.name };
    this.#stage({ type: "action.proposed", at, causationId: call.turnId, data: { ...ref, actionId, input: call.input, sideEffect: call.tool.sideEffect } });
    this.#stage({ type: "action.validated", at, causationId: actionId, data: { actionId } });
    this.#stage({ type: "action.authorized", at, causationId: actionId, data: { actionId, decision: "allow", ...authorizationData(authorization) } });
    return actionId;
  }

  /**
   * Stages `action.authorized` naming the approval that still binds a parked action (the
   * caller checked it just now), then the lease and `executing` of its first attempt: one
   * transaction, committed before dispatch.
   */
  authorizeApproved(actionId: string, approvalId: string, authorization: Authorization, tool: AnyToolDeclaration, value: unknown): DispatchItem {
    this.#stage({
      type: "action.authorized",
      at: this.#clock.now(),
      causationId: actionId,
      data: { actionId, decision: "allow", ...authorizationData(authorization), approvalId },
    });
    return this.lease(actionId, tool, value);
  }

  /** Stages the end of an action that will never be dispatched (a denied or voided approval): failed, not retryable. */
  refuse(actionId: string, code: YokeErrorCode, message: string): void {
    const at = this.#clock.now();
    const result = errorEnvelope(code, message, at, this.#clock);
    this.#stage({ type: "action.failed", at, causationId: actionId, data: { actionId, dispatched: false, retryable: false, retrying: false, result } });
  }

  /**
   * Stages the next attempt's lease and `executing` for an action that may take one, without
   * asking `authorizeAttempt` (the caller decided it just now: an approval checked before dispatch).
   */
  lease(actionId: string, tool: AnyToolDeclaration, value: unknown, decided?: { readonly rule: string; readonly policy?: PolicyDecision }): DispatchItem {
    const attempt = (this.#book.status(actionId)?.attempt ?? 0) + 1;
    const attemptId = newId(this.#ids, "attempt");
    const deadlineAt = this.#clock.now() + tool.timeoutMs;
    const data = { actionId, attemptId, attempt, deadlineAt, ...decidedData(decided) };
    this.#stage({ type: "action.leased", at: this.#clock.now(), causationId: actionId, data });
    this.#stage({ type: "action.executing", at: this.#clock.now(), causationId: actionId, data: { actionId, attemptId } });
    return { tool, input: value, actionId, attemptId, attempt, deadlineAt };
  }

  /**
   * The next attempt of an action, decided now by `authorizeAttempt` (without one, leased as
   * before). Allowed: leased carrying the decision, and executing. Refused: leased, then failed
   * (not dispatched, not retryable) with the refusal's code and both decisions, so the log
   * names the attempt the policy stopped.
   */
  async #leaseAuthorized(actionId: string, tool: AnyToolDeclaration, value: unknown): Promise<Settlement> {
    if (this.#authorizeAttempt === undefined) return { kind: "retry", item: this.lease(actionId, tool, value) };
    const attempt = (this.#book.status(actionId)?.attempt ?? 0) + 1;
    const answer = await this.#authorizeAttempt({ actionId, attempt, tool, value });
    if (answer.kind === "allow") return { kind: "retry", item: this.lease(actionId, tool, value, answer) };
    const attemptId = newId(this.#ids, "attempt");
    const at = this.#clock.now();
    this.#stage({ type: "action.leased", at, causationId: actionId, data: { actionId, attemptId, attempt, deadlineAt: at + tool.timeoutMs } });
    this.#refuseAttempt(actionId, attemptId, answer);
    return { kind: "done" };
  }

  /** Stages the failure, not dispatched, of an attempt `authorizeAttempt` refused. */
  #refuseAttempt(actionId: string, attemptId: string, refusal: Refusal): void {
    const at = this.#clock.now();
    this.#stage({ type: "action.failed", at, causationId: actionId, data: refusalData(actionId, attemptId, refusal, this.#clock) });
  }

  /**
   * Brings a journaled action this process did not dispatch to where it can go on (a
   * resume): before `executing` nothing ran, so it is leased; `executing` without an outcome
   * becomes `uncertain` and is reconciled; `uncertain` is reconciled.
   */
  async recover(record: ActionRecord, tool: AnyToolDeclaration, value: unknown, authorization: Authorization = DEFAULT_AUTHORIZATION): Promise<Settlement> {
    const { state } = record.status;
    if (state === "proposed")
      this.#stage({ type: "action.validated", at: this.#clock.now(), causationId: record.actionId, data: { actionId: record.actionId } });
    if (state === "proposed" || state === "validated") {
      this.#stage({
        type: "action.authorized",
        at: this.#clock.now(),
        causationId: record.actionId,
        data: { actionId: record.actionId, decision: "allow", ...authorizationData(authorization) },
      });
    }
    // Authorized just now by the caller: leased without asking again. Authorized earlier (a held call): asked now.
    if (state === "proposed" || state === "validated") return this.#retryOrGiveUp(record.actionId, tool, value, true);
    if (state === "authorized") return this.#retryOrGiveUp(record.actionId, tool, value, false);
    if (state === "leased") {
      if (this.#signal?.aborted) return this.#cancelled(record.actionId, record.attemptId);
      const attemptId = record.attemptId ?? newId(this.#ids, "attempt");
      // Leased by another process, never dispatched: decided now, before it becomes executing.
      const answer = this.#authorizeAttempt && (await this.#authorizeAttempt({ actionId: record.actionId, attempt: record.status.attempt, tool, value }));
      if (answer !== undefined && answer.kind === "refuse") {
        this.#refuseAttempt(record.actionId, attemptId, answer);
        return { kind: "done" };
      }
      const data = { actionId: record.actionId, attemptId, ...decidedData(answer) };
      this.#stage({ type: "action.executing", at: this.#clock.now(), causationId: record.actionId, data });
      const deadlineAt = this.#clock.now() + tool.timeoutMs;
      const item = { tool, input: value, actionId: record.actionId, attemptId, attempt: record.status.attempt, deadlineAt };
      return { kind: "retry", item };
    }
    if (state === "executing") {
      // `?? ""` is unreachable: every way into executing names its attempt.
      this.#stage({
        type: "action.uncertain",
        at: this.#clock.now(),
        causationId: record.actionId,
        data: { actionId: record.actionId, attemptId: record.attemptId ?? "", reason: STOPPED_AFTER_DISPATCH },
      });
      return this.#reconcile(record.actionId, tool, value, record.receipt);
    }
    if (state === "uncertain") return this.#reconcile(record.actionId, tool, value, record.receipt);
    return { kind: "done" };
  }

  /** Stages the outcome of one attempt, and what follows from it (a retry, a reconciliation). */
  async settle(item: DispatchItem, outcome: AttemptOutcome): Promise<Settlement> {
    const { actionId, attemptId } = item;
    const at = this.#clock.now();
    switch (outcome.kind) {
      case "committed": {
        const receipt = outcome.receipt === undefined ? {} : { receipt: outcome.receipt };
        this.#stage({ type: "action.committed", at, causationId: actionId, data: { actionId, attemptId, result: outcome.result, ...receipt } });
        return { kind: "done" };
      }
      case "failed": {
        const retrying = retriesAfter(item, outcome) && !this.#signal?.aborted;
        this.#stage({
          type: "action.failed",
          at,
          causationId: actionId,
          data: { actionId, attemptId, dispatched: outcome.dispatched, retryable: outcome.retryable, retrying, result: outcome.result },
        });
        return retrying ? this.#leaseAuthorized(actionId, item.tool, item.input) : { kind: "done" };
      }
      case "uncertain":
        this.#stage({ type: "action.uncertain", at, causationId: actionId, data: { actionId, attemptId, reason: outcome.reason } });
        return this.#reconcile(actionId, item.tool, item.input, undefined);
      case "deferred":
        throw new YokeError("INTERNAL", `attempt ${attemptId} was deferred, not run: dispatch it again instead of settling it`, {
          details: { actionId, attemptId },
        });
    }
  }

  /** Stages `compensating` for each action, in the order given (reverse commit order: see `compensationPlan`). */
  beginCompensation(actionIds: readonly string[], reason: string): void {
    for (const actionId of actionIds) {
      this.#stage({ type: "action.compensating", at: this.#clock.now(), causationId: actionId, data: { actionId, reason } });
    }
  }

  /**
   * Runs one compensation (journaled `compensating` already durable) and stages its end.
   * The compensation gets `<actionId>:compensate` as its idempotency key, so a resume that
   * runs it again after a crash undoes the effect once. A failure escalates.
   */
  async compensate(record: ActionRecord, tool: AnyToolDeclaration, value: unknown, signal: AbortSignal): Promise<Settlement> {
    const { actionId } = record;
    try {
      if (!tool.compensate) throw new YokeError("TOOL_COMPENSATION_FAILED", `${tool.name} has no compensation`);
      await tool.compensate(value, { actionId, idempotencyKey: `${actionId}:compensate`, receipt: record.receipt, signal, ...this.#fencing });
    } catch (error) {
      const message = messageOf(error);
      this.#stage({ type: "action.compensation_failed", at: this.#clock.now(), causationId: actionId, data: { actionId, message } });
      return { kind: "escalate", actionId, reason: `the compensation of ${tool.name} (action ${actionId}) failed: ${message}` };
    }
    this.#stage({ type: "action.compensated", at: this.#clock.now(), causationId: actionId, data: { actionId } });
    return { kind: "done" };
  }

  /** Staged drafts since the last drain, for one append. */
  drain(): ActionEventDraft[] {
    return this.#book.drain();
  }

  async #reconcile(actionId: string, tool: AnyToolDeclaration, value: unknown, receipt: JsonValue | undefined): Promise<Settlement> {
    const answer = await askReconciler(tool, actionId, receipt, this.#fencing);
    const at = this.#clock.now();
    if (answer.status === "applied") {
      const text = answer.content ?? `the effect of ${tool.name} was confirmed applied by reconciliation after its outcome was lost`;
      const result = { status: "ok" as const, content: [{ type: "text" as const, text }], timing: { startedAt: at, endedAt: at, durationMs: 0 } };
      const kept = answer.receipt === undefined ? {} : { receipt: answer.receipt };
      this.#stage({ type: "action.reconciled", at, causationId: actionId, data: { actionId, verdict: "applied", result, ...kept } });
      return { kind: "done" };
    }
    if (answer.status === "unknown") {
      this.#stage({ type: "action.reconciled", at, causationId: actionId, data: { actionId, verdict: "unknown" } });
      return { kind: "escalate", actionId, reason: answer.reason };
    }
    this.#stage({ type: "action.reconciled", at, causationId: actionId, data: { actionId, verdict: answer.status } });
    return this.#retryOrGiveUp(actionId, tool, value, false);
  }

  /**
   * From `authorized`: a new attempt if the tool allows one more (asked of `authorizeAttempt`
   * unless `decidedNow`), else a final failure.
   */
  async #retryOrGiveUp(actionId: string, tool: AnyToolDeclaration, value: unknown, decidedNow: boolean): Promise<Settlement> {
    const attempts = this.#book.status(actionId)?.attempt ?? 0;
    if (attempts < maxAttempts(tool)) {
      if (this.#signal?.aborted) return this.#cancelled(actionId, undefined);
      return decidedNow ? { kind: "retry", item: this.lease(actionId, tool, value) } : this.#leaseAuthorized(actionId, tool, value);
    }
    const at = this.#clock.now();
    const result = errorEnvelope("TOOL_FAILED", `${tool.name} did not apply its effect in ${attempts} attempts; not retried`, at, this.#clock);
    this.#stage({ type: "action.failed", at, causationId: actionId, data: { actionId, dispatched: false, retryable: false, retrying: false, result } });
    return { kind: "done" };
  }

  /** The run was cancelled before the action's next attempt could start: it fails for good, not dispatched. */
  #cancelled(actionId: string, attemptId: string | undefined): Settlement {
    const at = this.#clock.now();
    const result = errorEnvelope("CANCELLED", "the run was cancelled before another attempt of this call could start; it did not run", at, this.#clock);
    const attempt = attemptId === undefined ? {} : { attemptId };
    this.#stage({
      type: "action.failed",
      at,
      causationId: actionId,
      data: { actionId, ...attempt, dispatched: false, retryable: false, retrying: false, result },
    });
    return { kind: "done" };
  }

  #stage(draft: ActionEventDraft): void {
    const staged = this.#book.stage(draft);
    if (!staged.ok) {
      throw new YokeError("ACTION_TRANSITION_ILLEGAL", `refused to journal ${draft.type} for ${draft.data.actionId}: ${staged.reason}`, {
        details: { actionId: draft.data.actionId, type: draft.type },
      });
    }
  }
}
