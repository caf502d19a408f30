/**
 * The run model shared by `yoke show` and the run viewer: `inspectRun(events)` builds a
 * `RunView` from one run's events; `listRuns(journal, filters)` summarizes many.
 */
export { inspectRun } from "./inspect-run.js";
export type { InspectOptions } from "./inspect-run.js";
export { listRuns, summarizeRun } from "./list-runs.js";
export { listSessions } from "./list-sessions.js";
export type { SessionSummary } from "./list-sessions.js";
export type { RunFilters, TenantListing } from "./list-runs.js";
export { findRun, loadRunView } from "./load-run.js";
export { readRun } from "./read-run.js";
export type { ReadRun } from "./read-run.js";
export { describeEvent } from "./describe-event.js";
export { manifestDeltaOf, nextManifest } from "./inspect-manifest.js";
export type {
  ActionStep,
  ActionView,
  ApprovalView,
  AttemptView,
  BudgetView,
  ChainStatus,
  DecisionFact,
  InputView,
  InspectProblem,
  InterruptView,
  LoopDetectionView,
  ManifestItemView,
  ManifestSummary,
  ModelCallView,
  RejectionView,
  ReservationView,
  ResponsePartView,
  ResponseView,
  ResultView,
  RunFailureView,
  RunHeader,
  RunStatus,
  RunSummary,
  RunView,
  TimelineEntry,
  TurnView,
  UsageView,
  VerifierRunView,
  WaitView,
} from "./run-view.js";
