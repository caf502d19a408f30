import { z } from "zod/v4";
import { RECONCILE_VERDICTS } from "./actions.js";
import { JsonValueSchema, ToolResultEnvelopeSchema } from "./model.js";
import { ToolDriftSchema, ToolRevisionRecordSchema } from "./tool-registry.js";
import { ArgumentProvenanceSchema, InfluenceSchema, PolicyDecisionSchema } from "./policy.js";
import { CarriesSchema } from "./carries.js";
import { ApprovalBindingSchema } from "./approvals.js";
import { PolicyDelegationSchema } from "./delegation.js";
import { HashSchema } from "./event-envelope.js";
import { actionRef, attemptRef, callInput, callRef, decided, reauthorized, reserves, settles } from "./event-fragments.js";

/** What running a tool twice does to the world. */
export const SideEffectClassSchema = z.enum(["none", "idempotent", "reversible", "irreversible"]);

/** The pinned tools' compatibility events: drift, and a declared re-admission. */
export const TOOL_REGISTRY_EVENTS = {
  /**
   * A compatibility event: a source offers a definition other than the one the run pinned
   * (or no longer offers it). The tool is not callable by this run until a `tool.readmitted`.
   */
  "tool.drifted": ToolDriftSchema,
  /** A drifted tool re-admitted for this run by a declared rule: from here on the run calls `revision`. */
  "tool.readmitted": z.object({ toolName: z.string(), rule: z.string(), revision: ToolRevisionRecordSchema }),
} as const;

/** A proposed tool call, from its rejection or admission through its attempts, approvals, reconciliation and compensation. */
export const ACTION_EVENTS = {
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
    /** What could have steered the decision to make the call (absent in journals written before influence). */
    influence: InfluenceSchema.optional(),
    /** What the call carries (absent when its tool declares no payloads, and in journals written before it). */
    carries: CarriesSchema.optional(),
    /** Where the call stood against the run's delegation (absent for a run without one). */
    delegation: PolicyDelegationSchema.optional(),
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
   * `action.executing`. Absent without an engine and in journals written before attempts were re-authorized.
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
} as const;
