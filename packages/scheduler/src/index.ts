/**
 * @yoke/scheduler — the action transaction. Every accepted tool call becomes an action that
 * moves `proposed → validated → authorized → leased → executing → committed | uncertain |
 * failed | compensated`, each transition checked against the state machine of
 * `@yoke/protocol` before it is staged for the journal. Batches run conflict-aware from the
 * tools' read and write sets; uncertain effects are resolved only by reconciliation;
 * compensations run in reverse order of commit. Imports `@yoke/protocol` only.
 *
 * `errorEnvelope` and `outputEnvelope` build the tool-result envelopes the scheduler journals,
 * for a loop of your own that runs tools itself.
 */
export { BatchTransaction, DEFAULT_AUTHORIZATION, DEFAULT_MAX_ATTEMPTS, STOPPED_AFTER_DISPATCH, maxAttempts } from "./batch-transaction.js";
export type {
  ApprovalRequest,
  AttemptAuthorization,
  AttemptAuthorizationRequest,
  AttemptAuthorizer,
  Authorization,
  BatchTransactionOptions,
  ProposedCall,
  Settlement,
} from "./batch-transaction.js";
export { compensationPlan, pendingCompensations } from "./compensation-plan.js";
export type { CompensableTool } from "./compensation-plan.js";
export { conflictPredecessors, conflicts, defaultAccess } from "./conflicts.js";
export { errorEnvelope, outputEnvelope } from "./envelopes.js";
export { accessOf, executeBatch, realTimers } from "./execute-batch.js";
export type { AttemptOutcome, DispatchItem, ExecuteBatchOptions, Timers } from "./execute-batch.js";
export { argumentDigest, callIdempotently } from "./idempotent-call.js";
export type { IdempotentCallOptions } from "./idempotent-call.js";
