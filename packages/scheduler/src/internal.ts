/**
 * @yoke/scheduler/internal — the scheduler's moving parts that `BatchTransaction` and
 * `executeBatch` are built from: the action book that checks and stages each transition,
 * the result-envelope builders, the conflict-graph helpers and the argument digest. NO
 * SEMVER GUARANTEE: any of these may change or go in a minor or patch release. Import from
 * `@yoke/scheduler` instead wherever you can.
 */
export { ActionBook, transitionInput } from "./action-book.js";
export type { ActionEventDraft, StageResult } from "./action-book.js";
export { ALL_RESOURCES, conflictPredecessors } from "./conflicts.js";
export { errorEnvelope, outputEnvelope } from "./envelopes.js";
export { accessOf } from "./execute-batch.js";
export { argumentDigest } from "./idempotent-call.js";
