/**
 * @yoke/runtime — the agent loop. `createHarness` composes a journal (`JournalV1`), a model
 * (`ProviderAdapterV1`) and tools (`defineTool`) into a loop that journals every step before
 * acting on it: the compiled request's manifest delta and hash before the call, the response and every tool call's
 * verdict before any tool runs, every result with the next request. Any run resumes from
 * its journal in a fresh process; a response already journaled is never requested again,
 * and a tool call a crash cut is re-run only when its side-effect class makes that safe.
 */
export { DEFAULT_TOOL_TIMEOUT_MS, defineTool } from "./define-tool.js";
export type { AnyTool, SideEffect, Tool, ToolContext, ToolDefinition, ToolOutput } from "./define-tool.js";
export { jsonSchema } from "./define-tool.js";
export type { JsonSchemaDefinition } from "./define-tool.js";
export { createHarness } from "./harness.js";
export { createApprovalDesk } from "./approval-desk.js";
export type { ApprovalDesk, ApprovalDeskOptions } from "./approval-desk.js";
export {
  DEFAULT_MAX_CONCURRENT_TOOLS,
  DEFAULT_MAX_EVENT_OUTPUT_BYTES,
  DEFAULT_MAX_TOOL_CALLS_PER_TURN,
  DEFAULT_APPROVAL_TTL_MS,
  DEFAULT_MAX_TURNS,
  DEFAULT_MODEL_CALL_TIMEOUT_MS,
  DEFAULT_MODEL_RETRIES,
  DEFAULT_OUTPUT_RETRIES,
  DEFAULT_TRUNCATED_CALL_RETRIES,
} from "./harness-deps.js";
export type {
  ApproveOptions,
  CompletionCheck,
  CompletionContext,
  CompletionVerdict,
  ContextOptions,
  DenyOptions,
  Harness,
  HarnessBudgetOptions,
  HarnessEnvironmentOptions,
  HarnessLoopOptions,
  HarnessModelOptions,
  HarnessObservabilityOptions,
  HarnessOptions,
  HarnessPolicyOptions,
  HarnessStoreOptions,
  HarnessToolOptions,
  InterruptOptions,
  ResumeOptions,
  OutputOf,
  PrincipalOption,
  RunResult,
  RunWaiting,
  StartOptions,
  StartOrResumeOptions,
  WaitingRunResult,
} from "./harness-types.js";
export type { DelegationOption, DelegationPlanner, DelegationPlanningInput, PlanningTool } from "./delegation-types.js";
export { contextItemsOf, entitiesIn, traceArguments, trustedFieldsOf } from "./provenance.js";
export type { ContextItem, EntityRole, TrustedField } from "./provenance.js";
export { DEFAULT_LEASE_TTL_MS, sameHostProcessGone } from "./run-lease.js";
export { linuxProcessTable, ownerCertainlyGone, processOwnerId } from "./owner-identity.js";
export type { ProcessIdentity, ProcessTable } from "./owner-identity.js";
export type { LeaseOptions } from "./run-lease.js";
export { runWorker } from "./worker/run-worker.js";
export type { ResumableHarness, WorkerHarnessContext, WorkerHarnessFactory, WorkerOptions, WorkerRunReport, WorkerSummary } from "./worker/run-worker.js";
export { RunScanCache, scanRuns } from "./worker/run-verdicts.js";
export { lineLogger } from "./worker/line-logger.js";
export type { LogLevel } from "./worker/line-logger.js";
export type { RunVerdict, ScannedRun } from "./worker/run-verdicts.js";
export { silentLogger } from "./logger.js";
export type { LogMethod, Logger } from "./logger.js";
export { realSleep } from "./model-call.js";
export type { Sleep } from "./model-call.js";
export { reconstructRequest, reconstructRequestFromEvents } from "./reconstruct-request.js";
export type { CutOutput, ReconstructOptions } from "./cut-outputs.js";
export type { ReconstructedRequest } from "./reconstruct-request.js";
export { RUNTIME_VERSION } from "./version.js";
export { REDACTED, createRedactor } from "./redaction.js";
export type { Redactor } from "./redaction.js";
export type { CapabilityOptions } from "./capabilities.js";
export type { BudgetOptions } from "./budget/budget-options.js";
export { MEMORY_CONTENT_ROLE, createMemoryTools } from "./memory/memory-tools.js";
export type { MemoryToolsOptions } from "./memory/memory-tools.js";
export { createMemoryStore } from "./memory/memory-store.js";
export type { MemoryAddress, MemoryRecord, MemoryScope, MemoryStore } from "./memory/memory-store.js";
export {
  DEFAULT_INTERRUPT_POLL_MS,
  DEFAULT_LOOP_CYCLE,
  DEFAULT_LOOP_THRESHOLD,
  DEFAULT_MAX_TOKENS_CONTINUATIONS,
  DEFAULT_VERIFIER_RETRIES,
} from "./loop-control.js";
export type { HumanWaiting, InterruptRequestOptions, LoopControlOptions, LoopDetectionOptions, WaitingAnswerOptions } from "./loop-control.js";
export { COMPLETION_CHECK_VERIFIER_ID, completionCheckVerifier } from "./verification/check-verifier.js";
export { INTERRUPT_INBOX_SUFFIX } from "./interrupts.js";
export { SESSION_STREAM_SUFFIX } from "./sessions/session-stream.js";
export type { UserInput, UserMessage } from "./user-input.js";
export type { UserMediaSource, UserPartInput } from "./user-media.js";
export { callSignature } from "./loop/run-facts.js";
export { DEFAULT_MAX_BUFFERED_DELTAS } from "./stream/delta-buffer.js";
export { isDelta } from "./stream/stream-parts.js";
export type { RunStreamDelta, RunStreamDurablePart, RunStreamEnd, RunStreamPart, StreamedToolCall } from "./stream/stream-parts.js";
export type { RunStream, StreamOptions } from "./stream/run-stream-types.js";
export { UI_MESSAGE_STREAM_HEADERS } from "./ui/ui-message-chunks.js";
export type { UIMessageChunk } from "./ui/ui-message-chunks.js";
export { pipeUIMessageStreamToResponse, toSSE, toUIMessageStream, toUIMessageStreamResponse } from "./ui/ui-message-stream.js";
export type { NodeResponseLike, StreamOfRun, UIMessageStreamOptions } from "./ui/ui-message-stream.js";
export { approvalResponsesOf } from "./ui/approval-responses.js";
export type { UIApprovalResponse } from "./ui/approval-responses.js";
export { shadow } from "./rollout/shadow.js";
export type { CandidateRun, ShadowOptions, ShadowedHarness } from "./rollout/shadow.js";
export type { ReadOnlyTools, SuppressedCall } from "./rollout/suppress-effects.js";
export { COMPARED_FIELDS, compareRuns } from "./rollout/compare-runs.js";
export type { CandidateFailure, ComparedField, DecisionDifference, RolloutReport } from "./rollout/compare-runs.js";
export type { CallDecision, CallDecisionKind, RunLatency, RunSpend, RunSummary } from "./rollout/run-decisions.js";
export { formatRolloutReport } from "./rollout/format-report.js";
export { createReleaseRouter, releaseTarget } from "./rollout/release-router.js";
export type { ReleaseName, ReleaseRouter, ReleaseRouterOptions, ReleaseTarget } from "./rollout/release-router.js";
export { releaseMatches } from "./rollout/release-match.js";
export type { ReleaseTag } from "./rollout/release-match.js";
export { stableFraction } from "./rollout/stable-share.js";
export { replay } from "./replay/replay.js";
export type { ReplayOptions, ReplayReport, ReplaySource } from "./replay/replay.js";
export { SCHEMA_ADDITIONS } from "./replay/schema-additions.js";
export type { SchemaAddition } from "./replay/schema-additions.js";
export type { ReleaseMigration, ReleaseMigrationInput, ReleaseOptions, ReleaseVerdict } from "./release/release-options.js";
