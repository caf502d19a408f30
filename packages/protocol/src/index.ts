/**
 * @yoke/protocol — the shared vocabulary of Yoke: ids and the id source, the
 * canonical event union (zod), the normalized model request and response, the tool-result
 * envelope, the versioned interfaces every layer implements (`JournalV1`,
 * `ProviderAdapterV1`, `ArtifactStoreV2`, `Clock`, `IdSource`), the run-state fold, and `YokeError` with its
 * closed code table. Depends on zod only.
 *
 * Two more entries, semver-covered like this one, hold what an implementation of these
 * interfaces outside the @yoke packages needs: `@yoke/protocol/provider-utils` (provider
 * SDK error mapping, cancellation, usage arithmetic, the request and response schemas piece
 * by piece) and `@yoke/protocol/journal-utils` (the action state machine, event-type, key-id
 * and hash patterns, id kinds, the canonical-JSON depth limit).
 */
export type { ActionState, ActionStatus, ReconcileVerdict } from "./actions.js";
export { ArtifactDigestSchema, ArtifactRefSchema, artifactDigestOf } from "./artifacts.js";
export type { ArtifactDigest, ArtifactMeta, ArtifactRef, ArtifactScope, ArtifactStoreV1, ArtifactStoreV2 } from "./artifacts.js";
export { canonicalJson } from "./canonical-json.js";
export type { CanonicalJsonOptions } from "./canonical-json.js";
export { systemClock, steppingClock } from "./clock.js";
export type { Clock } from "./clock.js";
export { YOKE_ERROR_CODES, YokeError } from "./errors.js";
export type { YokeErrorCode, YokeErrorDetails, YokeErrorOptions } from "./errors.js";
export type { WitnessCase, YokeErrorDetailsByCode } from "./error-details.js";
export {
  EVENT_DATA_SCHEMAS,
  EVENT_SCHEMA_VERSION,
  EventDraftSchema,
  GENESIS_HASH,
  JournalEventSchema,
  SESSION_STREAM_SUFFIX,
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
  RunFork,
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
export { newId, parseId, sequentialIdSource, ulidIdSource } from "./ids.js";
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
  JsonValueSchema,
  ModelRequestSchema,
  ModelResponseSchema,
  STOP_REASONS,
  ToolSpecSchema,
  UserPartSchema,
  parseToolArguments,
  withParsedArguments,
  toolCallsOf,
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
  ResponseFormat,
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
  WithheldToolCallPart,
  Usage,
  UserPart,
} from "./model.js";
export { CallSettingsChangeSchema, CallSettingsSchema, parseCallSettings, type CallSettings, type CallSettingsChange } from "./call-settings.js";
export { ReasoningEffortSchema, type ReasoningEffort } from "./model.js";
export { FilePartSchema, ImagePartSchema, MediaSourceSchema, dataUrl, isBase64, modalityOf } from "./user-parts.js";
export type { FilePart, ImagePart, MediaPart, MediaSource } from "./user-parts.js";
export { REFUSAL_STOP_REASONS, isRefusedResponse, withholdRefusedCalls } from "./refused-response.js";
export { JsonObjectSchema, isJsonObject, isJsonValue } from "./json-value.js";
export type { GenerateOptions, ModelStreamPart, ProviderAdapterV1, ProviderCapabilities } from "./provider.js";
export { RunStateAccumulator, reduceRun } from "./run-state.js";
export { CallInputReader, pendingCallIndex, withCallInput, withInputFromCall, type ActionOpeningEvent } from "./call-input.js";
export type { ActionAuthority, ActionRecord, PendingToolCall, RunPhase, RunState } from "./run-state-types.js";
export type {
  AnyToolDeclaration,
  CompensationContext,
  FencingContext,
  ReconcileContext,
  ReconcileResult,
  SideEffectClass,
  ToolAccess,
  ToolCallContext,
  ToolDeclarationV1,
  ToolLoopPolicy,
  ToolOutput,
} from "./tool-declaration.js";
export { DEFAULT_TOOL_TIMEOUT_MS, defineTool } from "./define-tool.js";
export { assertToolShape } from "./tool-shape.js";
export type { AnyTool, Tool, ToolDefinition } from "./define-tool.js";
export { describeIssues, jsonSchema, jsonSchemaOf, validateWithSchema } from "./schema-adapter.js";
export type { InferSchemaOutput, JsonSchemaDefinition, JsonSchemaValidation, SchemaLike, SchemaValidationResult } from "./schema-adapter.js";
export type { StandardJSONSchemaV1, StandardSchemaV1, StandardTypedV1 } from "./standard-schema.js";
export {
  DataClassificationSchema,
  NetworkPolicySchema,
  ReadmissionRuleSchema,
  ToolChangeSchema,
  ToolContractSchema,
  ToolDriftSchema,
  ToolHintsSchema,
  ToolOriginSchema,
  ToolRevisionRecordSchema,
  ToolSnapshotSchema,
} from "./tool-registry.js";
export type {
  DataClassification,
  DiscoveryRequest,
  NetworkPolicy,
  OfferedTools,
  ReadmissionRule,
  RegistrationOptions,
  RemoteToolDeclaration,
  SourceRegistrationOptions,
  SourceToolDefinition,
  ToolChange,
  ToolContract,
  ToolDrift,
  ToolFilter,
  ToolHints,
  ToolLifecycle,
  ToolOrigin,
  ToolRegistryV1,
  ToolResolution,
  ToolRevisionRecord,
  ToolRevisionV1,
  ToolSnapshot,
  ToolSourceV1,
} from "./tool-registry.js";
export { CarriesSchema } from "./carries.js";
export type { Carries } from "./carries.js";
export {
  ArgumentProvenanceSchema,
  INFLUENCE_LISTED_MAX,
  InfluenceSchema,
  POLICY_EFFECTS,
  PolicyDecisionSchema,
  PolicyEffectSchema,
  PolicyTupleSchema,
  ProvenanceOriginSchema,
  ProvenanceSourceSchema,
} from "./policy.js";
export type {
  ArgumentProvenance,
  Influence,
  InfluenceIntegrity,
  PolicyDecision,
  PolicyEffect,
  PolicyEngineV1,
  PolicyTuple,
  ProvenanceOrigin,
  ProvenanceSource,
  ToolPolicyFacts,
} from "./policy.js";
export {
  DELEGATION_LIMITS,
  DelegationGrantSchema,
  DelegationSchema,
  parseDelegation,
  PolicyDelegationSchema,
  type Delegation,
  type DelegationGrant,
  type PolicyDelegation,
  type RunDelegation,
} from "./delegation.js";
export { APPROVAL_BINDING_FIELDS, ApprovalBindingSchema, checkApprovalBinding } from "./approvals.js";
export type { ApprovalBinding, ApprovalBindingField, ApprovalCheck, ApprovalRecord } from "./approvals.js";
export { awaitingApprovals } from "./run-state-approvals.js";
export { CapabilityReceiptSchema, CapabilityScopeSchema } from "./capabilities.js";
export type { Capability, CapabilityBrokerV1, CapabilityReceipt, CapabilityScope, CapabilityUse, CapabilityVerification } from "./capabilities.js";
export {
  BUDGET_DIMENSIONS,
  BUDGET_DIMENSION_SPECS,
  BudgetAmountsSchema,
  BudgetDimensionSchema,
  BudgetReservationSchema,
  BudgetSettlementSchema,
  CarriedReservationSchema,
  CarriedSettlementSchema,
  ChargeAttributionSchema,
  ModelPriceSchema,
  PricingTableSchema,
} from "./budget.js";
export type {
  BudgetAmounts,
  BudgetDimension,
  BudgetDimensionSpec,
  BudgetLedgerV1,
  BudgetReservation,
  BudgetSettlement,
  CarriedReservation,
  CarriedSettlement,
  ChargeAttribution,
  ModelPrice,
  PricingTable,
  ReservationResult,
} from "./budget.js";
export { budgetEntriesOf, compactReservation, compactSettlement } from "./budget-entries.js";
export type { BudgetEntry, ReservationCarrier } from "./budget-entries.js";
export { VerifierVerdictSchema } from "./verifier-verdict.js";
export type { VerifierVerdict } from "./verifier-verdict.js";
export type { VerifierInput, VerifierV1 } from "./verifier.js";
export { RELEASE_FIELDS, ReleaseSchema, compareReleases, describeReleaseDifferences, runtimeVersionOf } from "./release.js";
export type { Release, ReleaseDifference, ReleaseField } from "./release.js";
