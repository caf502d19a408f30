/**
 * @yoke/cli — the `yoke` command, and the same commands as functions for scripts and tests:
 * `main(argv, io)`. Reads any journal store the user points it at (a SQLite file by default),
 * and exports the run model both `yoke show` and the run viewer render: `inspectRun(events)`
 * and `listRuns(journal, filters)`.
 */
export { main } from "./main.js";
export type { CliIo } from "./main.js";
export { defaultJournalLocation, openStore } from "./store/open-store.js";
export type { HarnessFactory, HarnessFactoryContext } from "./commands/resume.js";
export { EXIT } from "./cli/exit-codes.js";
export { VIEWER_CSP, VIEWER_HOST, startViewer } from "./viewer/index.js";
export type { RunningViewer, ViewerOptions } from "./viewer/index.js";
export type { CliJournal, OpenStoreOptions } from "./store/open-store.js";
export { describeEvent, findRun, inspectRun, listRuns, loadRunView, readRun, summarizeRun } from "./inspect/index.js";
export type {
  ActionStep,
  ActionView,
  ApprovalView,
  AttemptView,
  BudgetView,
  ChainStatus,
  DecisionFact,
  InputView,
  InspectOptions,
  InspectProblem,
  InterruptView,
  LoopDetectionView,
  ManifestItemView,
  ManifestSummary,
  ModelCallView,
  ReadRun,
  RejectionView,
  ReservationView,
  ResponsePartView,
  ResponseView,
  ResultView,
  RunFailureView,
  RunFilters,
  RunHeader,
  RunStatus,
  RunSummary,
  RunView,
  TenantListing,
  TimelineEntry,
  TurnView,
  UsageView,
  VerifierRunView,
  WaitView,
} from "./inspect/index.js";
export { exportRunOtlp } from "./commands/export-otlp.js";
export type { ExportRunOtlpOptions, ExportRunOtlpResult } from "./commands/export-otlp.js";
