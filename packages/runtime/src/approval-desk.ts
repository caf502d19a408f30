import { YokeError, type ApprovalRecord, type Clock, type JournalV1, type ModelResponse, type ProviderAdapterV1, type RunScope } from "@yoke/protocol";
import { approvalOf, grantOrVoid, type ApprovalDecision } from "./approvals.js";
import { createCompiledContext } from "./compiled-context.js";
import type { HarnessStoreOptions } from "./harness-options/store.js";
import { resolveOptions } from "./harness-deps.js";
import type { Logger } from "./logger.js";
import { load, newContext, owned } from "./open-run.js";
import type { HarnessDeps } from "./run-context.js";
import type { ApproveOptions, DenyOptions } from "./run-options.js";
import { commitTurn } from "./turn/turn.js";

/** `harness.approve`: grants a waiting approval request (or voids it if it expired first). */
export async function approveRun(deps: HarnessDeps, runId: string, approvalId: string, approveOptions: ApproveOptions): Promise<ApprovalRecord> {
  checkApprover(approveOptions?.approver);
  if (approveOptions.expiresAt !== undefined && !Number.isInteger(approveOptions.expiresAt)) {
    throw new YokeError("CONFIG_INVALID", "approve: expiresAt must be an integer (epoch ms)", { details: { option: "expiresAt" } });
  }
  return decideApproval(deps, { tenantId: deps.tenantId, runId }, approvalId, (approval) =>
    grantOrVoid(approval, { ...approveOptions, now: deps.clock.now(), ttlMs: deps.approvalTtlMs }),
  );
}

/** `harness.deny`: denies a waiting approval request; the model is told the reason. */
export async function denyRun(deps: HarnessDeps, runId: string, approvalId: string, denyOptions: DenyOptions): Promise<ApprovalRecord> {
  checkApprover(denyOptions?.approver);
  if (typeof denyOptions.reason !== "string") throw new YokeError("CONFIG_INVALID", "deny: reason must be a string", { details: { option: "reason" } });
  return decideApproval(deps, { tenantId: deps.tenantId, runId }, approvalId, ({ actionId }) => ({
    draft: {
      type: "approval.denied",
      at: deps.clock.now(),
      causationId: actionId,
      data: { actionId, approvalId, approver: denyOptions.approver, reason: denyOptions.reason },
    },
  }));
}

/**
 * Journals a person's decision on an approval request, under the run's lease: the request
 * must exist and still wait (status `requested`, its action parked), else APPROVAL_NOT_FOUND;
 * a finished run is RUN_FINISHED. Returns the approval as decided, or throws the decision's
 * refusal once it is journaled (an approval that came after the request expired).
 */
async function decideApproval(
  deps: HarnessDeps,
  scope: RunScope,
  approvalId: string,
  decide: (approval: ApprovalRecord) => ApprovalDecision,
): Promise<ApprovalRecord> {
  return owned(deps, scope, { signal: undefined }, async (lease) => {
    const accumulator = await load(deps, scope);
    const state = accumulator.peek();
    if (state.phase === "finished") {
      throw new YokeError("RUN_FINISHED", `run ${scope.runId} has finished (${state.outcome?.status}); its approvals can no longer be decided`, {
        details: { ...scope, approvalId },
      });
    }
    const approval = state.approvals.get(approvalId);
    const action = approval === undefined ? undefined : state.actions.find((record) => record.actionId === approval.actionId);
    if (approval === undefined || approval.status !== "requested" || action?.status.state !== "awaiting_approval") {
      const why = approval === undefined ? "no such approval" : `it is ${approval.status}`;
      throw new YokeError("APPROVAL_NOT_FOUND", `run ${scope.runId} has no action waiting for approval ${approvalId} (${why})`, {
        details: { ...scope, approvalId },
      });
    }
    const context = newContext(deps, scope, accumulator, createCompiledContext(), undefined, lease);
    const { draft, refusal } = decide(approval);
    await commitTurn(context, [draft]);
    context.logger.info({ approvalId, actionId: approval.actionId, status: approvalOf(accumulator.peek(), approval.actionId)?.status }, "approval decided");
    if (refusal !== undefined) throw refusal;
    return accumulator.peek().approvals.get(approvalId)!;
  });
}

function checkApprover(approver: unknown): void {
  if (typeof approver !== "string" || approver === "")
    throw new YokeError("CONFIG_INVALID", "approver must be a non-empty string", { details: { option: "approver" } });
}

/** What `createApprovalDesk` needs: where the runs are, and the clock and TTL approvals are decided by. */
export interface ApprovalDeskOptions extends Pick<HarnessStoreOptions, "journal" | "tenantId" | "lease"> {
  /** The clock the approval's time and expiry are read from. Default: the system clock. */
  readonly clock?: Clock;
  /** How long a granted approval lets its action run (ms) when `approve` gives no `expiresAt`. Default as the harness's. */
  readonly approvalTtlMs?: number;
  readonly logger?: Logger;
}

/** Decides the approvals of runs without a model or tools: what an approval UI's backend, or `yoke approve`, holds. */
export interface ApprovalDesk {
  /** As `harness.approve`: journals `approval.granted` (or `approval.voided` APPROVAL_EXPIRED) under the run's lease. */
  approve(runId: string, approvalId: string, options: ApproveOptions): Promise<ApprovalRecord>;
  /** As `harness.deny`: journals `approval.denied` under the run's lease. */
  deny(runId: string, approvalId: string, options: DenyOptions): Promise<ApprovalRecord>;
  /** Closes a journal the desk opened from a path. */
  close(): Promise<void>;
}

/**
 * A desk that decides approvals on the journal alone: the same checks and events as
 * `harness.approve` / `harness.deny` (the request must still wait; a finished run is
 * RUN_FINISHED; an approval after the request expired voids it), taken under the run's
 * lease, so a process that owns the run is never written past. The run itself moves on when
 * a harness resumes it.
 *
 * @example
 * ```ts
 * const desk = createApprovalDesk({ journal: "./yoke.db", tenantId: "acme" });
 * await desk.approve("run_42", "approval_7", { approver: "ops@acme.example" });
 * await desk.close();
 * ```
 */
export function createApprovalDesk(options: ApprovalDeskOptions): ApprovalDesk {
  const deps = resolveOptions({
    ...(options.journal === undefined ? {} : { journal: options.journal }),
    ...(options.tenantId === undefined ? {} : { tenantId: options.tenantId }),
    ...(options.lease === undefined ? {} : { lease: options.lease }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.approvalTtlMs === undefined ? {} : { approvalTtlMs: options.approvalTtlMs }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    provider: NO_MODEL,
  });
  const ownsJournal = typeof options.journal === "string";
  return {
    approve: (runId, approvalId, approveOptions) => approveRun(deps, runId, approvalId, approveOptions),
    deny: (runId, approvalId, denyOptions) => denyRun(deps, runId, approvalId, denyOptions),
    close: async () => {
      if (ownsJournal) await (deps.journal as JournalV1).close();
    },
  };
}

/** A desk never calls a model: deciding an approval appends one event and returns. */
const NO_MODEL: ProviderAdapterV1 = {
  specificationVersion: "v1",
  provider: "approval-desk",
  modelId: "none",
  capabilities: {
    inputModalities: ["text"],
    outputModalities: ["text"],
    toolCalls: false,
    parallelToolCalls: false,
    structuredOutput: "none",
    streaming: false,
    cancellation: false,
    usage: { cacheReadTokens: false, cacheWriteTokens: false, reasoningTokens: false },
    contextWindow: 2,
    maxOutputTokens: 1,
    promptCaching: "none",
  },
  generate: async (): Promise<ModelResponse> => {
    throw new YokeError("INTERNAL", "an approval desk never calls a model");
  },
};
