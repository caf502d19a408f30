import {
  YokeError,
  newId,
  type ActionRecord,
  type ApprovalBinding,
  type ArgumentProvenance,
  type Clock,
  type IdSource,
  type JsonValue,
  type PolicyDecision,
  type ReconcileResult,
  type ToolDeclarationV1,
  type YokeErrorCode,
} from "@yoke/protocol";
import { ActionBook, type ActionEventDraft } from "./action-book.js";
import { errorEnvelope, messageOf } from "./envelopes.js";
import { maxAttempts, retriesAfter, type AttemptOutcome, type DispatchItem } from "./attempts.js";

export { DEFAULT_MAX_ATTEMPTS, maxAttempts } from "./attempts.js";

/** A call the runtime accepted: where it came from, and its input as journaled and as parsed. */
export interface ProposedCall {
  readonly turnId: string;
  readonly toolCallId: string;
  readonly tool: ToolDeclarationV1<any>;
  /** The input as journaled (JSON). */
  readonly input: JsonValue;
  /** The input as the tool's schema parsed it: what the handler receives. */
  readonly value: unknown;
}

/**
 * Why an action may run: the rule that allowed it, and (with a policy engine) the decision and
 * the provenance of its arguments, journaled with `action.admitted` / `action.authorized`.
 * Without one, the rule is `"default"` (allow by default, as before policy).
 */
export interface Authorization {
  readonly rule: string;
  readonly policy?: PolicyDecision;
  readonly provenance?: readonly ArgumentProvenance[];
}

/** Allow by default: what a batch without a policy engine journals. */
export const DEFAULT_AUTHORIZATION: Authorization = { rule: "default" };

/**
 * What parks an action for a person: the `require_approval` decision, the provenance and the
 * binding; the approval id defaults to the action id's body under `approval_` (one request per action).
 */
export interface ApprovalRequest {
  readonly approvalId?: string;
  readonly policy: PolicyDecision;
  readonly provenance: readonly ArgumentProvenance[];
  readonly binding: ApprovalBinding;
}

/** What settling one attempt leads to: another attempt to dispatch, an escalation, or nothing more. */
export type Settlement =
  | { readonly kind: "done" }
  | { readonly kind: "retry"; readonly item: DispatchItem }
  | { readonly kind: "escalate"; readonly actionId: string; readonly reason: string };

export interface BatchTransactionOptions {
  readonly clock: Clock;
  readonly ids: IdSource;
  /** The actions already journaled for this batch (a resume); default none. */
  readonly records?: readonly ActionRecord[];
  /**
   * The run's signal. Once it has aborted, no new attempt is leased: an action that would
   * take one fails for good instead (not dispatched, CANCELLED), and a leased attempt not yet
   * executing fails the same way, so a cancelled run never journals an `executing` that
   * will not run.
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * The fencing token of the run's lease this batch runs under: every reconciliation and
   * compensation is given it (`ReconcileContext`, `CompensationContext`), as every dispatch is.
   */
  readonly fencingToken?: number | undefined;
}

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

  constructor(options: BatchTransactionOptions) {
    this.#fencing = options.fencingToken === undefined ? {} : { fencingToken: options.fencingToken };
    this.#clock = options.clock;
    this.#ids = options.ids;
    this.#book = ActionBook.fromRecords(options.records ?? []);
    this.#signal = options.signal;
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
  authorizeApproved(actionId: string, approvalId: string, authorization: Authorization, tool: ToolDeclarationV1<any>, value: unknown): DispatchItem {
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

  /** Stages the next attempt's lease and `executing` for an action that may take one. */
  lease(actionId: string, tool: ToolDeclarationV1<any>, value: unknown): DispatchItem {
    const attempt = (this.#book.status(actionId)?.attempt ?? 0) + 1;
    const attemptId = newId(this.#ids, "attempt");
    const deadlineAt = this.#clock.now() + tool.timeoutMs;
    this.#stage({ type: "action.leased", at: this.#clock.now(), causationId: actionId, data: { actionId, attemptId, attempt, deadlineAt } });
    this.#stage({ type: "action.executing", at: this.#clock.now(), causationId: actionId, data: { actionId, attemptId } });
    return { tool, input: value, actionId, attemptId, attempt, deadlineAt };
  }

  /**
   * Brings a journaled action this process did not dispatch to where it can go on (a
   * resume): before `executing` nothing ran, so it is leased; `executing` without an outcome
   * becomes `uncertain` and is reconciled; `uncertain` is reconciled.
   */
  async recover(record: ActionRecord, tool: ToolDeclarationV1<any>, value: unknown, authorization: Authorization = DEFAULT_AUTHORIZATION): Promise<Settlement> {
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
    if (state === "proposed" || state === "validated" || state === "authorized") return this.#retryOrGiveUp(record.actionId, tool, value);
    if (state === "leased") {
      if (this.#signal?.aborted) return this.#cancelled(record.actionId, record.attemptId);
      const attemptId = record.attemptId ?? newId(this.#ids, "attempt");
      this.#stage({ type: "action.executing", at: this.#clock.now(), causationId: record.actionId, data: { actionId: record.actionId, attemptId } });
      const deadlineAt = this.#clock.now() + tool.timeoutMs;
      const item = { tool, input: value, actionId: record.actionId, attemptId, attempt: record.status.attempt, deadlineAt };
      return { kind: "retry", item };
    }
    if (state === "executing") {
      // `?? ""` is unreachable (an equivalent mutant): every way into executing names its attempt.
      this.#stage({
        type: "action.uncertain",
        at: this.#clock.now(),
        causationId: record.actionId,
        data: { actionId: record.actionId, attemptId: record.attemptId ?? "", reason: "the process stopped after dispatch, before the outcome was journaled" },
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
        return retrying ? { kind: "retry", item: this.lease(actionId, item.tool, item.input) } : { kind: "done" };
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
  async compensate(record: ActionRecord, tool: ToolDeclarationV1<any>, value: unknown, signal: AbortSignal): Promise<Settlement> {
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

  async #reconcile(actionId: string, tool: ToolDeclarationV1<any>, value: unknown, receipt: JsonValue | undefined): Promise<Settlement> {
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
    return this.#retryOrGiveUp(actionId, tool, value);
  }

  /** From `authorized`: a new attempt if the tool allows one more, else a final failure. */
  #retryOrGiveUp(actionId: string, tool: ToolDeclarationV1<any>, value: unknown): Settlement {
    const attempts = this.#book.status(actionId)?.attempt ?? 0;
    if (attempts < maxAttempts(tool)) {
      return this.#signal?.aborted ? this.#cancelled(actionId, undefined) : { kind: "retry", item: this.lease(actionId, tool, value) };
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

/** The `rule` (and `policy`, `provenance` when decided by an engine) of an admission or authorization event. */
function authorizationData(authorization: Authorization): { rule: string; policy?: PolicyDecision; provenance?: ArgumentProvenance[] } {
  return {
    rule: authorization.rule,
    ...(authorization.policy === undefined ? {} : { policy: authorization.policy }),
    ...(authorization.provenance === undefined ? {} : { provenance: authorization.provenance.slice() }),
  };
}

/**
 * Whether an uncertain effect happened. The tool's reconciler decides; without one, a
 * `none` or `idempotent` tool is `retry_safe` (another attempt under the same key does no
 * harm) and any other is `unknown`. A reconciler that throws answers `unknown`.
 */
async function askReconciler(
  tool: ToolDeclarationV1<any>,
  actionId: string,
  receipt: JsonValue | undefined,
  fencing: { readonly fencingToken?: number },
): Promise<Exclude<ReconcileResult, { status: "unknown" }> | { status: "retry_safe" } | { status: "unknown"; reason: string }> {
  if (tool.reconcile) {
    try {
      const answer = await tool.reconcile(actionId, receipt, { actionId, receipt, ...fencing });
      if (answer.status === "unknown")
        return { status: "unknown", reason: answer.reason ?? `the reconciler of ${tool.name} could not tell whether action ${actionId} applied` };
      return answer;
    } catch (error) {
      return { status: "unknown", reason: `the reconciler of ${tool.name} failed: ${messageOf(error)}` };
    }
  }
  if (tool.sideEffect === "none" || tool.sideEffect === "idempotent") return { status: "retry_safe" };
  return { status: "unknown", reason: `${tool.name} is ${tool.sideEffect} and has no reconciler: whether action ${actionId} applied is unknown` };
}
