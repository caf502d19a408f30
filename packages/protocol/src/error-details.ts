import type { RunPhase } from "./run-phase.js";
import type { ToolOrigin } from "./tool-contract.js";
import type { Release, ReleaseDifference } from "./release-schema.js";

/**
 * What `YokeError.details` holds, per code: the facts a caller may act on (ids, sequence
 * numbers, names), never secrets. `undefined`: the code carries no details (its `details` is an
 * empty object). A member marked optional is given by some of the places that raise the code
 * and not by others. Codes whose raisers are many and varied (`CONFIG_INVALID`, `INTERNAL`,
 * `JOURNAL_CORRUPT`, `TESTKIT_EXPECTATION_FAILED`) type the members callers read and leave the
 * rest open.
 *
 * @example
 * ```ts
 * if (YokeError.hasCode(error, "JOURNAL_CONFLICT")) retryFrom(error.details.actualSeq);
 * ```
 */
export type YokeErrorDetailsByCode = {
  // journal
  JOURNAL_CONFLICT: { tenantId: string; runId: string; expectedSeq: number; actualSeq: number };
  JOURNAL_CORRUPT: OpenDetails<RunScope & { seq?: number; reason?: string; operation?: string; sqliteCode?: string | null; problems?: string[] }>;
  JOURNAL_CHAIN_BROKEN: RunScope & { seq?: number; reason?: string };
  JOURNAL_SCHEMA_UNSUPPORTED: { seq?: number; schemaVersion?: number; fileVersion?: number; supported?: number };
  JOURNAL_CLOSED: undefined;
  JOURNAL_UNAVAILABLE: RunScope & {
    filename?: string;
    operation?: string;
    sqliteCode?: string | null;
    code?: string | null;
    witness?: string;
    errno?: string | null;
    lastSeq?: number;
    committed?: boolean;
  };
  JOURNAL_INVALID_APPEND: { runId?: string; seq?: number; index?: number; type?: string | undefined };
  /** `witnessCase`: which ordinary action the refusal looks like, and so which way out its message gives. */
  JOURNAL_TRUNCATED: RunScope & { witness: string; runs?: number; seq?: number; reason?: string; witnessCase?: WitnessCase };
  JOURNAL_WITNESS_INVALID: RunScope & { witness: string; seq?: number; reason?: string; witnessCase?: WitnessCase; journalId?: string; witnessId?: string };
  JOURNAL_NOT_INITIALIZED: { filename?: string; path?: string };
  JOURNAL_READ_ONLY: undefined;
  JOURNAL_KEY_UNAVAILABLE: RunScope & { seq?: number; keyId?: string | null; reason?: string };
  JOURNAL_EVENT_TOO_LARGE: RunScope & { index: number; bytes: number; maxEventBytes: number; seq?: number; type?: string };
  RUN_LEASE_HELD: { tenantId: string; runId: string; ownerId: string; token: number; expiresAt?: number; remainingMs?: number };
  RUN_LEASE_LOST: { tenantId: string; runId: string; token: number; currentToken: number | null; currentOwnerId: string | null };
  RUN_NOT_FOUND: RunScope & { seq?: number; turnIndex?: number; requestInTurn?: number };
  RUN_ALREADY_EXISTS: { tenantId: string; runId: string };
  RUN_ID_INVALID: { kind: "tenant" | "run"; id: string; index: number };
  RUN_FINISHED: { tenantId: string; runId: string; approvalId?: string };
  SESSION_BUSY: { tenantId: string; sessionId: string; runId: string; phase: RunPhase | "starting" };
  SESSION_MISMATCH: {
    tenantId: string;
    runId: string;
    previousRunId: string;
    expectedLength: number;
    expectedHeadHash: string;
    actualLength: number;
    actualHeadHash: string | null;
  };
  EVENT_INVALID: { seq?: number; type?: string; index?: number; path?: string; unknownDimensions?: string[] };
  // model and provider
  PROVIDER_UNEXPECTED_CALL: { callIndex: number };
  PROVIDER_UNCONSUMED_STEPS: { remaining: number; calls?: number; requests?: number };
  PROVIDER_RATE_LIMITED: ProviderDetails;
  PROVIDER_UNAVAILABLE: ProviderDetails & { finishReason?: string; rawFinishReason?: string | null };
  PROVIDER_REQUEST_INVALID: ProviderDetails;
  PROVIDER_RESPONSE_INVALID: Omit<ProviderDetails, "status"> & {
    stopReason?: string;
    finishReason?: string;
    reason?: string;
    status?: number | string | undefined;
  };
  PROVIDER_STREAM_CUT: ProviderDetails & { finishReason?: string | undefined; events?: number };
  PROVIDER_TIMEOUT: ProviderDetails & { timeoutMs?: number };
  PROVIDER_ADMISSION_REJECTED: {
    provider: string;
    model?: string;
    api?: string;
    reason?: string;
    /** An image or file refused: the message (absent for a harness's input check) and part it is, its modality, media type and source kind. */
    message?: number;
    part?: number;
    type?: "image" | "file";
    modality?: "image" | "file";
    mediaType?: string;
    source?: "artifact" | "base64" | "url";
  };
  // context
  REPLAY_DIVERGED: RunScope & { seq: number; type: string; path: string; recorded: unknown; replayed: unknown };
  REPLAY_UNSUPPORTED: OpenDetails<{ runId?: string; seq?: number; type?: string; reason?: string }>;
  REQUEST_MISMATCH: { turnId?: string; seq?: number; id?: string; expected?: string; actual?: string; requestHash?: string; [key: string]: unknown };
  CONTEXT_OVERFLOW: {
    reason: "context_overflow";
    what: "mandatory" | "transcript";
    required: number;
    available: number;
    contextWindow: number;
    outputReserve: number;
    sections: Readonly<Partial<Record<string, number>>>;
    compactionRequired: boolean;
    compactionFailed?: boolean;
  };
  // tools
  TOOL_UNKNOWN: undefined;
  TOOL_INPUT_INVALID: ToolSourceDetails & { unknown?: string[]; shareable?: string[] };
  TOOL_DUPLICATE_CALL_ID: undefined;
  TOOL_FAILED: ToolSourceDetails & { isError?: boolean };
  TOOL_TIMEOUT: undefined;
  TOOL_INTERRUPTED: undefined;
  TOOL_OUTCOME_UNKNOWN: ToolSourceDetails;
  TOOL_CALL_LIMIT: undefined;
  TOOL_INPUT_TOO_LARGE: undefined;
  TOOL_OUTPUT_TOO_LARGE: { bytes: number; maxArtifactBytes: number };
  ARTIFACT_MISSING: ArtifactPlace & { digest: string };
  ARTIFACT_CORRUPT: ArtifactPlace & { digest: string; actual?: string; path?: string | undefined };
  ARTIFACT_UNAVAILABLE: { path: string };
  ARTIFACT_SCOPE_INVALID: { tenantId: string };
  TOOL_OUTPUT_INVALID: undefined;
  TOOL_COMPENSATION_FAILED: undefined;
  TOOL_FENCED: { key: string; token: number | null; fence: number | null };
  TOOL_NOT_OFFERED: undefined;
  /** `drift`: the run's `ToolDrift` for the tool. */
  TOOL_DRIFTED: {
    actionId: string;
    toolName: string;
    revision: string;
    drift: { toolName: string; pinned: string | null; offered: string | null; changes: readonly string[]; renamedTo?: string | undefined };
  };
  TOOL_WITHDRAWN: { actionId: string; toolName: string; revision: string };
  TOOL_REVISION_UNAVAILABLE: { actionId: string; toolName: string; revision: string };
  TOOL_SOURCE_UNAVAILABLE: ToolSourceDetails;
  TOOL_SOURCE_INVALID: ToolSourceDetails;
  TOOL_REGISTRATION_CONFLICT: { tool: string; holder: ToolOrigin; offered: ToolOrigin };
  ACTION_TRANSITION_ILLEGAL: { actionId: string; type: string; seq?: number };
  IDEMPOTENCY_KEY_REUSED: { tenantId?: string; key?: string; storedDigest?: string; argumentDigest?: string };
  // policy, approvals and capabilities
  POLICY_DENIED: undefined;
  POLICY_INVALID: {
    toolName?: string;
    issues?: readonly { readonly path: readonly string[]; readonly code: string; readonly message: string }[];
    missing?: readonly { readonly ruleId: string; readonly dimensions: readonly string[] }[];
  };
  POLICY_CHANGED: undefined;
  DELEGATION_CHANGED: { tenantId: string; runId: string };
  RELEASE_INCOMPATIBLE: {
    tenantId: string;
    runId: string;
    pinned: Release;
    running: Release;
    differences: ReleaseDifference[];
    /** The runtime that can drive the run: the one it pinned. */
    driveWith: string;
    /** The event that pinned that release: `run.started`, or the run's last `release.changed` / `release.migrated`. */
    pinnedBy: { seq: number; type: string };
  };
  MIGRATION_FAILED: { tenantId: string; runId: string; migrationId: string };
  APPROVAL_DENIED: undefined;
  APPROVAL_INVALID: undefined;
  APPROVAL_EXPIRED: { approvalId: string; actionId: string; expiresAt: number; now: number };
  APPROVAL_NOT_FOUND: { approvalId: string; tenantId: string; runId: string };
  CAPABILITY_INVALID: { capabilityId?: string };
  CAPABILITY_EXPIRED: { capabilityId: string };
  CAPABILITY_REVOKED: { capabilityId: string; revokedId: string };
  CAPABILITY_SCOPE: undefined;
  CAPABILITY_ESCALATION: { capabilityId: string };
  CAPABILITY_RESOURCE_INVALID: { resource: string };
  TENANT_MISMATCH: { tenantId: string; key: string };
  // budgets, verifiers, loops and subagents
  BUDGET_EXHAUSTED: undefined;
  BUDGET_INVALID: {
    option?: string;
    dimension?: string;
    value?: unknown;
    reservationId?: string;
    parentId?: string;
    budgetId?: string;
    charged?: number;
    held?: number;
    [key: string]: unknown;
  };
  PRICING_MISSING: { pricingId: string; missing: readonly { readonly provider: string; readonly model: string }[] };
  VERIFIER_FAILED: OpenDetails<{
    verifierId?: string;
    reason?: string;
    command?: string;
    args?: readonly string[];
    cwd?: string;
    errorCode?: string | null;
    exitCode?: number | null;
    signal?: string | null;
    durationMs?: number;
    timeoutMs?: number;
    stdoutTail?: string;
    stderrTail?: string;
    truncatedBytes?: { readonly stdout: number; readonly stderr: number };
  }>;
  LOOP_DETECTED: undefined;
  RUN_NOT_WAITING: { phase: RunPhase; tenantId: string; runId: string };
  SUBAGENT_FAILED: { childRunId: string; status: string | null; reason?: string | undefined };
  // runtime and configuration
  CONFIG_INVALID: OpenDetails<{ option?: string; tool?: string; verifierId?: string; runId?: string }>;
  DEPENDENCY_MISSING: { package: string; entry?: string };
  USER_MEDIA_INVALID: { part: number; mediaType: string; reason: string };
  DUPLICATE_ID: undefined;
  CANCELLED: { provider?: string; requestId?: string; verifierId?: string };
  // telemetry
  EXPORT_FAILED: { url: string; spans: number };
  // testkit
  TESTKIT_EXPECTATION_FAILED: OpenDetails<Record<never, never>>;
  INTERNAL: OpenDetails<{ runId?: string; seq?: number; phase?: RunPhase; actionId?: string; attemptId?: string; operation?: string }>;
};

/** A run's tenant and id, where the raiser knows them. */
type RunScope = { tenantId?: string; runId?: string };
/**
 * What a provider adapter knows of a failed call (`providerError`), and whatever else an
 * adapter (this repository's or another's) adds: a response body, say, which redaction scrubs.
 */
type ProviderDetails = OpenDetails<{
  provider?: string;
  kind?: string;
  type?: string;
  status?: number;
  requestId?: string;
  retryAfterMs?: number;
  responseId?: string | undefined;
}>;
/** A tool source (an MCP server, a registry origin) and the tool a call went to. */
type ToolSourceDetails = {
  origin?: ToolOrigin | string;
  source?: string;
  tool?: string;
  /** A member of a listed definition that was malformed. */
  field?: string;
  rpcCode?: number;
};
/** Where a referenced artifact was met: the event, the item and the part. */
type ArtifactPlace = { seq?: number; itemId?: string; part?: number };
/** Typed members callers read, and any others a raiser adds. */
type OpenDetails<T> = T & { [key: string]: unknown };

/**
 * What a head-witness refusal looks like it came from: a deleted database (`database_deleted`:
 * start a new journal), a copy made without its witness (`witness_missing`: adopt it), an older
 * copy restored over a newer one (`older_copy`: adopt it if that was meant), or another
 * journal's witness or database (`other_journal`).
 */
export type WitnessCase = "database_deleted" | "witness_missing" | "older_copy" | "other_journal";
