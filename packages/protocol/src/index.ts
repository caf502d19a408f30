/**
 * @yoke/protocol — the shared vocabulary of Yoke: ids and the id source, the
 * canonical event union (zod), the normalized model request and response, the tool-result
 * envelope, the versioned interfaces every layer implements (`JournalV1`,
 * `ProviderAdapterV1`, `ArtifactStoreV1`, `Clock`, `IdSource`), the run-state fold, and `YokeError` with its
 * closed code table. Depends on zod only.
 */
export {
  ACTION_EVENT_TYPES,
  ACTION_STATES,
  RECONCILE_VERDICTS,
  isFinalActionState,
  transitionAction,
} from "./actions.js";
export type {
  ActionEventType,
  ActionState,
  ActionStatus,
  ActionTransitionInput,
  ActionTransitionResult,
  ReconcileVerdict,
} from "./actions.js";
export { ArtifactDigestSchema, ArtifactRefSchema, artifactDigestOf } from "./artifacts.js";
export type { ArtifactDigest, ArtifactMeta, ArtifactRef, ArtifactStoreV1 } from "./artifacts.js";
export { CANONICAL_JSON_MAX_DEPTH, canonicalJson } from "./canonical-json.js";
export type { CanonicalJsonOptions } from "./canonical-json.js";
export { systemClock, steppingClock } from "./clock.js";
export type { Clock } from "./clock.js";
export { YOKE_ERROR_CODES, YokeError } from "./errors.js";
export type { YokeErrorCode, YokeErrorOptions } from "./errors.js";
export {
  EVENT_DATA_SCHEMAS,
  EVENT_SCHEMA_VERSION,
  EVENT_TYPE_PATTERN,
  ChainHashSchema,
  EventDraftSchema,
  GENESIS_HASH,
  HashSchema,
  JOURNAL_KEY_ID_PATTERN,
  JournalEventSchema,
  OutcomeSchema,
  SideEffectClassSchema,
  YOKE_EVENT_TYPES,
  isEventOfType,
  isYokeEventType,
  parseYokeEvent,
} from "./events.js";
export { readYokeEvents } from "./read-events.js";
export type {
  EventData,
  EventDraft,
  JournalEvent,
  Outcome,
  OutcomeStatus,
  YokeEvent,
  YokeEventDraft,
  YokeEventOf,
  YokeEventType,
  StoredJson,
} from "./events.js";
export type {
  IdempotencyClaim,
  IdempotencyClaimRequest,
  IdempotencyCompleteRequest,
  IdempotencyOutcome,
  IdempotencyStoreV1,
} from "./idempotency.js";
export { ID_KINDS, idSchema, newId, parseId, sequentialIdSource, ulidIdSource } from "./ids.js";
export type {
  ActionId,
  AttemptId,
  IdKind,
  IdSource,
  RunId,
  SessionId,
  TenantId,
  TurnId,
  UlidIdSourceOptions,
} from "./ids.js";
export type {
  AppendOptions,
  AppendResult,
  JournalCapabilities,
  JournalHead,
  JournalKey,
  JournalKeyProvider,
  JournalV1,
  LeaseRequest,
  ReadOptions,
  RunLease,
  RunLeasesV1,
  RunScope,
  RunSummary,
  VerifyFailureReason,
  VerifyResult,
} from "./journal.js";
export {
  AssistantPartSchema,
  JsonValueSchema,
  MessageSchema,
  ModelRequestSchema,
  ModelResponseSchema,
  ProviderMetadataSchema,
  ReasoningPartSchema,
  RefusalPartSchema,
  STOP_REASONS,
  ServerToolCallPartSchema,
  ServerToolResultPartSchema,
  ServerToolSpecSchema,
  StopReasonSchema,
  TextPartSchema,
  ToolCallPartSchema,
  ToolResultEnvelopeSchema,
  ToolResultPartSchema,
  ToolSpecSchema,
  TruncatedToolCallPartSchema,
  TruncationSchema,
  UsageSchema,
  parseToolArguments,
  toolCallsOf,
  withUsageTotals,
} from "./model.js";
export type {
  AssistantPart,
  JsonValue,
  Message,
  ModelRequest,
  ModelResponse,
  ProviderMetadata,
  ReasoningPart,
  RefusalPart,
  ServerToolCallPart,
  ServerToolResultPart,
  ServerToolSpec,
  StopReason,
  TextPart,
  ToolCallPart,
  ToolResultEnvelope,
  ToolResultPart,
  ToolSpec,
  TruncatedToolCallPart,
  Truncation,
  Usage,
} from "./model.js";
export { JsonObjectSchema, isJsonObject, isJsonValue } from "./json-value.js";
export { addUsage } from "./provider.js";
export { cancellable, providerError, retryAfterMs, withRequestId } from "./provider-errors.js";
export type { ProviderErrorContext, SdkErrorLike } from "./provider-errors.js";
export { PROVIDER_ERROR_CLASSES, classifyProviderError } from "./provider-error-classes.js";
export type { ProviderErrorClass, ProviderErrorKind } from "./provider-error-classes.js";
export type { GenerateOptions, ModelStreamPart, ProviderAdapterV1, ProviderCapabilities } from "./provider.js";
export { RunStateAccumulator, reduceRun } from "./run-state.js";
export type { ActionRecord, PendingToolCall, RunPhase, RunState } from "./run-state-types.js";
export type {
  CompensationContext,
  ReconcileResult,
  SideEffectClass,
  ToolAccess,
  ToolCallContext,
  ToolDeclarationV1,
  ToolOutput,
} from "./tool-declaration.js";
