import { z } from "zod";
import { RECONCILE_VERDICTS } from "./actions.js";
import { YokeError } from "./errors.js";
import { JsonObjectSchema, type JsonValue } from "./json-value.js";
import { JsonValueSchema, ModelResponseSchema, TextPartSchema, ToolResultEnvelopeSchema, ToolSpecSchema } from "./model.js";
import { ToolDriftSchema, ToolRevisionRecordSchema, ToolSnapshotSchema } from "./tool-registry.js";
import { ArgumentProvenanceSchema, PolicyDecisionSchema } from "./policy.js";
import { ApprovalBindingSchema } from "./approvals.js";
import { BudgetAmountsSchema, BudgetDimensionSchema } from "./budget.js";
import { BudgetReservationData, BudgetSettlementData, CarriedReservationData, CarriedSettlementData } from "./budget-fast.js";
import { VerifierVerdictSchema } from "./verifier-verdict.js";

/**
 * The version of the event envelope and of the canonical event data below. Readers accept
 * every version up to this one; a journal written by a newer version is refused with
 * JOURNAL_SCHEMA_UNSUPPORTED rather than misread.
 */
export const EVENT_SCHEMA_VERSION = 1;

/** `noun.verb` (past tense), optionally `noun.noun.verb`. */
export const EVENT_TYPE_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*){1,3}$/;

/** 64 hex characters of SHA-256. The first event's predecessor is GENESIS_HASH. */
export const HashSchema = z.string().regex(/^[0-9a-f]{64}$/);
export const GENESIS_HASH = "0".repeat(64);

/**
 * A key id of a keyed journal chain: 1–64 characters of `[A-Za-z0-9._-]` (it is written
 * into every event hash it seals, between colons).
 */
export const JOURNAL_KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * An event's `hash` or `prevHash`: 64 hex characters of SHA-256 (an unkeyed chain), or
 * `hmac-sha256:<keyId>:<64 hex>` (a chain keyed per tenant, naming the key that sealed it).
 */
export const ChainHashSchema = z.string().regex(/^(?:hmac-sha256:[A-Za-z0-9._-]{1,64}:)?[0-9a-f]{64}$/);

/**
 * What a writer hands to `JournalV1.append`. The store adds the envelope: tenant, run,
 * sequence number, schema version and the hash chain.
 */
export const EventDraftSchema = z.object({
  type: z.string().regex(EVENT_TYPE_PATTERN),
  /** Milliseconds since the epoch, from the writer's injected clock. */
  at: z.number().int().nonnegative(),
  /** What caused this event: a turn, action or event id. */
  causationId: z.string().nullable().default(null),
  data: JsonObjectSchema,
});
export type EventDraft = z.input<typeof EventDraftSchema>;

/** A stored event: a draft with its envelope. */
export const JournalEventSchema = z.object({
  schemaVersion: z.number().int().positive(),
  tenantId: z.string(),
  runId: z.string(),
  seq: z.number().int().nonnegative(),
  type: z.string().regex(EVENT_TYPE_PATTERN),
  at: z.number().int().nonnegative(),
  causationId: z.string().nullable(),
  data: JsonObjectSchema,
  prevHash: ChainHashSchema,
  hash: ChainHashSchema,
});
export type JournalEvent = z.infer<typeof JournalEventSchema>;

/**
 * The closed set of ways a run ends. `verified_success`: the model said it was done and a
 * completion check passed. `completed`: the model said it was done and nothing checked it
 * (the harness had no completion check), so the answer is unverified.
 */
export const OutcomeSchema = z.discriminatedUnion("status", [
  z.object({ status: z.literal("verified_success"), summary: z.string().optional() }),
  z.object({ status: z.literal("completed") }),
  z.object({ status: z.literal("verification_failed"), reason: z.string() }),
  z.object({ status: z.literal("refused"), reason: z.string() }),
  z.object({
    status: z.literal("budget_exhausted"),
    budget: BudgetDimensionSchema,
    limit: z.number(),
    /** The reservation whose limit bound (absent for the turn limit and in journals written before budgets). */
    reservationId: z.string().optional(),
  }),
  z.object({ status: z.literal("escalated"), reason: z.string(), actionId: z.string().optional() }),
  z.object({ status: z.literal("cancelled"), reason: z.string() }),
]);
export type Outcome = z.infer<typeof OutcomeSchema>;
export type OutcomeStatus = Outcome["status"];

const turnRef = { turnId: z.string() };
const callRef = { turnId: z.string(), toolCallId: z.string(), toolName: z.string() };
const actionRef = { actionId: z.string() };
/**
 * An action's input, validated by its tool's schema. `inputFromCall: true` instead of `input`:
 * the input is exactly the arguments of the call it names (`toolCallId`) as the run's
 * `model.responded` holds them, journaled once there; the fold gives `input` back
 * (`withCallInput`), and refuses (EVENT_INVALID) a marker whose call has no arguments.
 * Exactly one of the two is present; journals written before the marker always carry `input`.
 */
const callInput = { input: JsonValueSchema.optional(), inputFromCall: z.literal(true).optional() };
const attemptRef = { actionId: z.string(), attemptId: z.string() };
/**
 * The policy decision on a call and the provenance of its argument values, journaled with the
 * action (or the refusal) it led to. Absent in journals written before policy.
 */
const decided = { policy: PolicyDecisionSchema.optional(), provenance: z.array(ArgumentProvenanceSchema).optional() };
/**
 * The budget an event carries (docs/decisions/0016): the reservation of the work it starts
 * (`reserved`) or the settlement of the work it ends (`settled`), in place of a separate
 * `budget.reserved` / `budget.settled` next to it, in the carried form (the attribution without
 * the ids the carrier holds, the settlement without `released`: CarriedReservation,
 * CarriedSettlement; `compactReservation`, `compactSettlement`). Absent without a budget, and
 * in journals written before; `budgetEntriesOf` reads every form back whole.
 */
const reserves = { reserved: CarriedReservationData.optional() };
/** The decision an attempt leased outside its action's admission was asked under (issue 33). */
const reauthorized = { rule: z.string().optional(), policy: PolicyDecisionSchema.optional() };
const settles = { settled: CarriedSettlementData.optional() };

/** What running a tool twice does to the world. */
export const SideEffectClassSchema = z.enum(["none", "idempotent", "reversible", "irreversible"]);

/**
 * The parent context a child run was forked from (`@yoke/context-compiler`'s `forkContext`),
 * taken from the request the parent's model saw when it asked for the spawn: that request's
 * run-state revision and hash, the parent item ids it shared (`shared`, as asked), and those
 * items as the child's evidence, whole (`evidence`: id `parent:<id>`, the text, its priority
 * and its trust, which is always a data label: a shared item is never an instruction). Every
 * request of the child is compiled with this evidence, and rebuilt from it, so a resumed
 * child keeps its fork whatever its parent did since.
 */
export const RunForkSchema = z.object({
  parentRevision: z.number().int().nonnegative(),
  parentRequestHash: HashSchema,
  shared: z.array(z.string()),
  evidence: z.array(
    z.object({
      id: z.string(),
      kind: z.enum(["evidence", "memory"]),
      text: z.string(),
      priority: z.number(),
      trust: z.enum(["tool_output", "retrieved", "remote_tool_description"]),
    }),
  ),
});
export type RunFork = z.infer<typeof RunForkSchema>;

/** Data of each canonical event type, keyed by type. */
export const EVENT_DATA_SCHEMAS = {
  "run.started": z.object({
    sessionId: z.string(),
    task: z.string(),
    systemPrompt: z.string().optional(),
    tools: z.array(ToolSpecSchema),
    /**
     * The tool registry snapshot the run pinned: every revision it may call (unless a journaled
     * `tool.readmitted` replaces one). Absent in journals written before the registry.
     */
    toolSnapshot: ToolSnapshotSchema.optional(),
    /**
     * Who the run acts for, as the harness authenticated it, and the scopes delegated to the
     * run's task: what every policy decision of the run names. Absent in journals written
     * before policy (the tenant stands in, unauthenticated, with no scopes).
     */
    principal: z.object({ id: z.string().min(1), authenticated: z.boolean(), scopes: z.array(z.string()) }).optional(),
    /**
     * Limits pinned for the run's life, so a resume decides as the first process did.
     * `maxToolCallsPerTurn`: calls of one response past it (in proposal order) are rejected
     * with TOOL_CALL_LIMIT; absent in journals written before it (no cap).
     * `maxEventOutputBytes`: UTF-8 bytes of one tool result (its text and structured output)
     * an event may hold inline; a larger result goes to an artifact store, or is answered with
     * TOOL_OUTPUT_TOO_LARGE; absent in journals written before it (no limit).
     * `maxToolInputBytes`: UTF-8 bytes of one tool call's arguments the run keeps; a larger
     * call is journaled without them (`omitted`) and answered with TOOL_INPUT_TOO_LARGE;
     * absent in journals written before it (no limit).
     */
    limits: z.object({
      maxTurns: z.number().int().positive(),
      maxToolCallsPerTurn: z.number().int().positive().optional(),
      maxEventOutputBytes: z.number().int().positive().optional(),
      maxToolInputBytes: z.number().int().positive().optional(),
    }),
    /**
     * A child run (a subagent): the parent's run and the `spawn_subagent` action that started
     * it, and the context revision of the parent it was forked from. Absent for a top-level run.
     * `fork`: what the child was forked from (see `RunForkSchema`); absent in journals written
     * before forks (the child started from its task alone).
     */
    parent: z.object({ runId: z.string(), actionId: z.string(), contextRevision: z.number().int().nonnegative(), fork: RunForkSchema.optional() }).optional(),
    /**
     * Set on the first event of a run's interrupt inbox (a stream of `interrupt.requested`
     * beside the run, see docs/decisions/0015): the run it is the inbox of. Such a stream is
     * never driven as a run.
     */
    inboxOf: z.string().optional(),
    /** What produced this run: pinned so a replay knows what it is replaying. */
    release: z.object({ runtime: z.string(), eventSchemaVersion: z.number().int() }),
  }),
  /**
   * `offered`: the tools offered to this turn, frozen (their revision digests and the digest of
   * the set). Absent in journals written before the registry (every pinned tool was offered).
   */
  "turn.started": z.object({
    ...turnRef,
    index: z.number().int().positive(),
    offered: z.object({ digest: HashSchema, tools: z.array(z.object({ name: z.string(), digest: HashSchema })) }).optional(),
  }),
  /**
   * A compatibility event: a source offers a definition other than the one the run pinned
   * (or no longer offers it). The tool is not callable by this run until a `tool.readmitted`.
   */
  "tool.drifted": ToolDriftSchema,
  /** A drifted tool re-admitted for this run by a declared rule: from here on the run calls `revision`. */
  "tool.readmitted": z.object({ toolName: z.string(), rule: z.string(), revision: ToolRevisionRecordSchema }),
  /** Journaled before the call: the digest of exactly the request sent. */
  "model.requested": z.object({ ...turnRef, requestHash: HashSchema, messageCount: z.number().int().nonnegative(), ...reserves }),
  /**
   * Journaled with `model.requested`, before the call: what the context compiler decided.
   * `manifestDelta` is the compiler's manifest delta against the run's previous manifest
   * (JSON here; the compiler's schema validates it), `artifacts` the content the request
   * refers to by SHA-256 (full text of cut tool outputs, …) not journaled before, and
   * `compactions` the context revisions this compile made. Journals written before it have none.
   */
  "context.compiled": z.object({
    ...turnRef,
    revision: z.number().int().nonnegative(),
    requestHash: HashSchema,
    manifestDelta: JsonObjectSchema,
    artifacts: z.array(z.object({ hash: HashSchema, text: z.string() })).optional(),
    compactions: z.array(JsonObjectSchema).optional(),
  }),
  /**
   * `argumentsFromRaw`: the response's tool calls were journaled without `arguments` where
   * those were exactly the parse of `rawArguments` (the argument text is kept once); a reader
   * gives them back with `withParsedArguments`, as the fold does. Absent in journals written
   * before it (every call kept both).
   */
  "model.responded": z.object({
    ...turnRef,
    response: ModelResponseSchema,
    latencyMs: z.number().nonnegative(),
    ...settles,
    argumentsFromRaw: z.literal(true).optional(),
  }),
  /**
   * One model call attempt that failed (a provider error, a deadline that passed, a response
   * that breaks the contract). `retryable`: the error's class allows another attempt;
   * `retrying`: another attempt follows. Changes no state: the request stays journaled, and a
   * run that stops here is resumed by asking again. Never journaled for a cancelled call.
   */
  "model.failed": z.object({
    ...turnRef,
    attempt: z.number().int().positive(),
    code: z.string(),
    message: z.string(),
    retryable: z.boolean(),
    retrying: z.boolean(),
    /** The provider's request id for the failed attempt, when it answered with one. Older events have none. */
    requestId: z.string().optional(),
  }),
  /** A proposed call that never ran: unknown tool, invalid input, duplicate id. */
  "tool.rejected": z.object({ ...callRef, code: z.string(), result: ToolResultEnvelopeSchema, ...decided }),
  /**
   * The calls of one response past the run's `maxToolCallsPerTurn`, none of which ran,
   * answered together so the answer stays bounded however many the model proposed: `count`
   * calls from the call at `fromIndex` (0-based, among the response's tool calls) to the
   * last. The first of them (`toolCallId`, `toolName`) gets `result`; the others are left out
   * of the conversation (the fold drops them from the response's assistant message), so
   * every call the provider is shown still has exactly one result. Journals written before
   * it have one `tool.rejected` (TOOL_CALL_LIMIT) per call instead.
   */
  "tool.excess_rejected": z.object({
    ...callRef,
    fromIndex: z.number().int().nonnegative(),
    count: z.number().int().positive(),
    code: z.string(),
    result: ToolResultEnvelopeSchema,
  }),
  /**
   * Legacy: journals written before action transactions (docs/decisions/0002). Read and
   * folded, never written; `action.admitted` (or `action.executing`) replaced it.
   */
  "tool.started": z.object({
    ...callRef,
    actionId: z.string(),
    attemptId: z.string(),
    attempt: z.number().int().positive(),
    input: JsonValueSchema,
  }),
  /** Legacy, like `tool.started` (the runtime writes it only to close an interrupted legacy call); `action.committed` and `action.failed` replaced it. */
  "tool.completed": z.object({ ...callRef, actionId: z.string(), attemptId: z.string(), result: ToolResultEnvelopeSchema }),
  /**
   * A tool call the runtime accepted, admitted in one step: proposed, validated, authorized
   * (`decision`, `rule`), leased (attempt 1, `attemptId`, `deadlineAt`) and executing. Durable
   * before the handler is invoked. The separate events below say the same for an action
   * admitted in several steps.
   */
  "action.admitted": z.object({
    ...callRef,
    ...actionRef,
    ...callInput,
    sideEffect: SideEffectClassSchema,
    /** The digest of the tool revision the action runs (absent in journals written before the registry). */
    toolRevision: HashSchema.optional(),
    decision: z.literal("allow"),
    rule: z.string(),
    ...decided,
    attemptId: z.string(),
    attempt: z.literal(1),
    deadlineAt: z.number(),
    ...reserves,
  }),
  /** A tool call the runtime accepted becomes an action; the action id is its idempotency key. */
  "action.proposed": z.object({ ...callRef, ...actionRef, ...callInput, sideEffect: SideEffectClassSchema, toolRevision: HashSchema.optional() }),
  "action.validated": z.object(actionRef),
  /** `approvalId`: the approval that authorized a parked action, checked again just before this event. */
  "action.authorized": z.object({ ...actionRef, decision: z.literal("allow"), rule: z.string(), ...decided, approvalId: z.string().optional() }),
  /**
   * A call the policy answered `require_approval`: a new action, proposed and validated in this
   * event, parked until a person decides. `binding` is what an approval must match
   * (`expiresAt`: the request's own deadline); the run waits (`RunState.awaitingApproval`).
   */
  "action.approval_requested": z.object({
    ...callRef,
    ...actionRef,
    ...callInput,
    sideEffect: SideEffectClassSchema,
    toolRevision: HashSchema.optional(),
    approvalId: z.string(),
    policy: PolicyDecisionSchema,
    provenance: z.array(ArgumentProvenanceSchema),
    binding: ApprovalBindingSchema,
  }),
  /** A person approved a parked action, for exactly `binding`. */
  "approval.granted": z.object({ ...actionRef, approvalId: z.string(), approver: z.string().min(1), binding: ApprovalBindingSchema }),
  /** A person denied a parked action; the action fails, not dispatched, and the model is told. */
  "approval.denied": z.object({ ...actionRef, approvalId: z.string(), approver: z.string().min(1), reason: z.string() }),
  /**
   * An approval that no longer binds when checked just before dispatch: expired, or a field of
   * its binding changed (`fields` names each). The action fails, not dispatched.
   */
  "approval.voided": z.object({
    ...actionRef,
    approvalId: z.string(),
    code: z.enum(["APPROVAL_EXPIRED", "APPROVAL_INVALID"]),
    fields: z.array(z.string()),
    reason: z.string(),
  }),
  /**
   * An attempt is reserved, with the deadline after which it must not be dispatched. With a
   * policy engine, an attempt leased outside its action's admission (a retry, a reconciled
   * action's next attempt, a held call) carries the decision it may run under, asked when it
   * was leased (`rule`, `policy`); a refused one is followed by `action.failed` instead of
   * `action.executing`. Absent without an engine and in journals written before issue 33.
   */
  "action.leased": z.object({ ...attemptRef, attempt: z.number().int().positive(), deadlineAt: z.number(), ...reauthorized }),
  /**
   * Durable before the handler is invoked: from here on the effect may have happened.
   * `rule`/`policy`: the decision asked just now for an attempt another process leased.
   */
  "action.executing": z.object({ ...attemptRef, ...reserves, ...reauthorized }),
  "action.committed": z.object({ ...attemptRef, result: ToolResultEnvelopeSchema, receipt: JsonValueSchema.optional(), ...settles }),
  /** The effect may or may not have happened; only reconciliation resolves it. */
  "action.uncertain": z.object({ ...attemptRef, reason: z.string(), ...settles }),
  /**
   * The attempt did not apply its effect. `retrying`: a new attempt follows in the same
   * transaction, so the model is not shown this result.
   */
  "action.failed": z.object({
    ...actionRef,
    attemptId: z.string().optional(),
    dispatched: z.boolean(),
    retryable: z.boolean(),
    retrying: z.boolean(),
    result: ToolResultEnvelopeSchema,
    ...settles,
    /**
     * An attempt the policy refused before dispatch (POLICY_CHANGED): the decision asked then
     * (`policy`) and the one the action's previous attempt ran under (`previousPolicy`; absent
     * when no engine decided it), so both revisions are in the journal.
     */
    policy: PolicyDecisionSchema.optional(),
    previousPolicy: PolicyDecisionSchema.optional(),
  }),
  "action.reconciled": z.object({
    ...actionRef,
    verdict: z.enum(RECONCILE_VERDICTS),
    receipt: JsonValueSchema.optional(),
    /** With `applied`: the result the model is shown. */
    result: ToolResultEnvelopeSchema.optional(),
  }),
  /** Journaled before the compensation runs. */
  "action.compensating": z.object({ ...actionRef, reason: z.string() }),
  "action.compensated": z.object(actionRef),
  "action.compensation_failed": z.object({ ...actionRef, message: z.string() }),
  "completion.checked": z.object({ ...turnRef, passed: z.boolean(), reason: z.string().optional() }),
  /**
   * The run's budget: its root reservation (`budgetId`) with its limits, the pricing table
   * spend is computed with (id and SHA-256 revision), and, for a child run, the parent's run,
   * action and the reservation it was given. Journaled once, right after `run.started`.
   */
  "budget.opened": z.object({
    budgetId: z.string().min(1),
    limits: BudgetAmountsSchema,
    pricing: z.object({ id: z.string(), revision: HashSchema, currency: z.string() }).optional(),
    parent: z.object({ runId: z.string(), actionId: z.string(), reservationId: z.string() }).optional(),
  }),
  /** Worst case held before work starts (a model call, a dispatch, a verifier, a child), out of `parentId`. */
  "budget.reserved": BudgetReservationData,
  /** The work finished: `charged` is what it used (attributed as reserved), `released` goes back to the parent. */
  "budget.settled": BudgetSettlementData,
  /** A verifier of the completion gate starts, for the answer of `turnId` (`attempt`: gate attempts so far + 1). */
  "verifier.started": z.object({
    ...turnRef,
    verifierRunId: z.string().min(1),
    verifierId: z.string().min(1),
    attempt: z.number().int().positive(),
    replaySafe: z.boolean(),
    ...reserves,
  }),
  /** What the verifier concluded; a `verifier.started` without it was cut short by a crash. */
  "verifier.finished": z.object({ ...turnRef, verifierRunId: z.string().min(1), verdict: VerifierVerdictSchema, ...settles }),
  /**
   * The run waits for a person: the model refused (`refusal`, `content_filter`), or the runtime
   * escalated (`escalation`: a loop that steering did not break, a verifier that asked for a
   * person, an uncertain effect nothing can reconcile). `resume(runId, { input })` lands the
   * person's input and the run goes on.
   */
  "run.waiting": z.object({
    turnId: z.string().optional(),
    kind: z.enum(["refusal", "content_filter", "escalation"]),
    reason: z.string(),
    actionId: z.string().optional(),
  }),
  /**
   * The same call signature (tool revision + canonical arguments + result digest) came back
   * `count` times, or a short cycle of signatures repeated: `response` says whether the
   * runtime steered the model (an `input.added` from `loop-detection` follows) or escalated.
   */
  "loop.detected": z.object({
    ...turnRef,
    toolName: z.string(),
    signature: HashSchema,
    count: z.number().int().positive(),
    pattern: z.enum(["repeat", "cycle"]),
    cycleLength: z.number().int().positive().optional(),
    response: z.enum(["steer", "escalate"]),
  }),
  /**
   * In a run's interrupt inbox (never in the run's own stream): any process asks the run's
   * owner to add `text` as input (`kind: "input"`) or to cancel the run (`kind: "cancel"`,
   * `text` the reason). The owner lands it at its next turn boundary.
   */
  "interrupt.requested": z.object({ interruptId: z.string().min(1), kind: z.enum(["input", "cancel"]), text: z.string() }),
  /**
   * In the run's own stream, in the same append as its effect (`input.added` source
   * `interrupt`, or `run.completed` cancelled): the inbox's request `interruptId` (at
   * `inboxSeq`) landed, so it never lands twice.
   */
  "interrupt.landed": z.object({ interruptId: z.string().min(1), inboxSeq: z.number().int().positive(), kind: z.enum(["input", "cancel"]) }),
  /**
   * Content added to the transcript by the runtime or an operator, not by the model.
   * `output-limit`: the runtime telling the model that the output limit cut its tool call.
   */
  /** `output-schema`: the final answer did not match the run's output schema; the issues go back to the model. */
  "input.added": z.object({
    content: z.array(TextPartSchema),
    source: z.enum(["completion-check", "operator", "output-limit", "output-schema", "verifier", "loop-detection", "interrupt"]),
  }),
  /**
   * `output`: when the run asked for structured output, the final answer parsed as JSON, as
   * it passed the run's output schema (the schema's validated value is rebuilt from it).
   */
  "run.completed": z.object({ outcome: OutcomeSchema, turns: z.number().int().nonnegative(), output: JsonValueSchema.optional() }),
  /**
   * The run stopped short of an outcome: the error that stopped it (a model call whose retries
   * ran out, a provider error that must not be retried, an error thrown inside the loop: a
   * completion check, the context compiler, …). Not terminal and changes no state: the run
   * stays in its phase and `resume` continues from there. `requestId`: the provider's request
   * id of the failed call, when it gave one; `attempts`: the model call attempts made (each
   * journaled as `model.failed`), when a model call stopped the run; `turnId`: the turn it
   * stopped in, once there is one.
   */
  "run.failed": z.object({
    turnId: z.string().optional(),
    code: z.string(),
    message: z.string(),
    retryable: z.boolean(),
    requestId: z.string().optional(),
    attempts: z.number().int().positive().optional(),
  }),
} as const;

export type YokeEventType = keyof typeof EVENT_DATA_SCHEMAS;
export const YOKE_EVENT_TYPES = Object.keys(EVENT_DATA_SCHEMAS) as YokeEventType[];
/** The data of a stored event of type `T`, as the journal gives it back (see `StoredJson`). */
export type EventData<T extends YokeEventType> = StoredJson<z.infer<(typeof EVENT_DATA_SCHEMAS)[T]>>;
/**
 * The data a draft of type `T` is typed with: zod's output type, whose optional members may be
 * `undefined` in the type (values built from parsed models, envelopes and outcomes). The
 * journal stores none: leave such a member out rather than setting it to `undefined`.
 */
type DraftData<T extends YokeEventType> = z.infer<(typeof EVENT_DATA_SCHEMAS)[T]>;

/**
 * `T` as the journal gives it back: parsed JSON, where an optional member is absent, never
 * `undefined`. zod types an optional member `T | undefined`, which a JSON object cannot
 * hold; without this a typed event would not be a `JournalEvent` under
 * `exactOptionalPropertyTypes`. Types that are JSON already are left as they are.
 */
export type StoredJson<T> = T extends JsonValue
  ? T
  : T extends readonly unknown[]
    ? { [I in keyof T]: StoredJson<T[I]> }
    : T extends object
      ? { [K in keyof T]: StoredJson<Exclude<T[K], undefined>> }
      : T;

/** A stored event whose type is one of Yoke's own, with typed data. */
export type YokeEvent = {
  [T in YokeEventType]: Omit<JournalEvent, "type" | "data"> & { type: T; data: EventData<T> };
}[YokeEventType];

/**
 * The member of `YokeEvent` with type `T`.
 *
 * @example
 * ```ts
 * function latency(event: YokeEventOf<"model.responded">): number {
 *   return event.data.latencyMs;
 * }
 * ```
 */
export type YokeEventOf<T extends YokeEventType> = Extract<YokeEvent, { type: T }>;

/**
 * Narrows a typed event (from `harness.events()`, `onEvent`, `readYokeEvents` or
 * `parseYokeEvent`) to one type, or one of several, so its `data` is typed without a cast.
 *
 * @example
 * ```ts
 * for await (const event of harness.events(runId)) {
 *   if (isEventOfType(event, "model.failed")) console.log(event.data.code, event.data.requestId);
 *   if (isEventOfType(event, ["run.failed", "run.completed"])) console.log(event.type);
 * }
 * ```
 */
export function isEventOfType<T extends YokeEventType>(event: YokeEvent, type: T | readonly T[]): event is YokeEventOf<T> {
  return typeof type === "string" ? event.type === type : (type as readonly string[]).includes(event.type);
}

/** A draft of one of Yoke's own events, typed by its `type`: `JournalV1.append` takes it as it is. */
export type YokeEventDraft = {
  [T in YokeEventType]: { type: T; at: number; causationId?: string | null; data: DraftData<T> };
}[YokeEventType];

export function isYokeEventType(type: string): type is YokeEventType {
  return Object.hasOwn(EVENT_DATA_SCHEMAS, type);
}

/**
 * Validates a stored event as one of Yoke's canonical events. Throws EVENT_INVALID naming
 * the sequence number; JOURNAL_SCHEMA_UNSUPPORTED for a newer schema version.
 */
export function parseYokeEvent(event: JournalEvent): YokeEvent {
  if (event.schemaVersion > EVENT_SCHEMA_VERSION) {
    throw new YokeError("JOURNAL_SCHEMA_UNSUPPORTED", `event ${event.seq} has schema version ${event.schemaVersion}`, {
      details: { seq: event.seq, schemaVersion: event.schemaVersion, supported: EVENT_SCHEMA_VERSION },
    });
  }
  if (!isYokeEventType(event.type)) {
    throw new YokeError("EVENT_INVALID", `event ${event.seq} has unknown type ${event.type}`, {
      details: { seq: event.seq, type: event.type },
    });
  }
  const parsed = EVENT_DATA_SCHEMAS[event.type].safeParse(event.data);
  if (!parsed.success) {
    throw new YokeError("EVENT_INVALID", `event ${event.seq} (${event.type}) has invalid data: ${parsed.error.message}`, {
      details: { seq: event.seq, type: event.type },
      cause: parsed.error,
    });
  }
  return { ...event, data: parsed.data } as YokeEvent;
}
