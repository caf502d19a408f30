import { z } from "zod/v4";
import { JsonValueSchema, ToolSpecSchema, UserPartSchema } from "./model.js";
import { ToolSnapshotSchema } from "./tool-registry.js";
import { BudgetDimensionSchema } from "./budget.js";
import { VerifierVerdictSchema } from "./verifier-verdict.js";
import { HashSchema } from "./event-envelope.js";
import { reserves, settles, turnRef } from "./event-fragments.js";
import { DelegationSchema } from "./delegation.js";
import { CallSettingsSchema } from "./call-settings.js";
import { ReleaseSchema } from "./release-schema.js";

// The run's own events: how it starts and opens a turn, the completion gate (the check and
// its verifiers), and how it waits, is interrupted, takes input and ends.

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
    /** What the refused reservation asked for in that dimension (absent for the turn limit and in older journals). */
    requested: z.number().optional(),
    /** What was left of the limit when it was refused: the limit less what was held and charged (absent as `requested`). */
    remaining: z.number().optional(),
  }),
  z.object({ status: z.literal("escalated"), reason: z.string(), actionId: z.string().optional() }),
  z.object({ status: z.literal("cancelled"), reason: z.string() }),
]);
export type Outcome = z.infer<typeof OutcomeSchema>;
export type OutcomeStatus = Outcome["status"];

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

/**
 * A session's stream (its `session.appended` events, beside its runs) is the journal stream
 * `<sessionId>` + this suffix, in the session's tenant.
 */
export const SESSION_STREAM_SUFFIX = ":session";

/** The events that start a run and each of its turns. */
export const RUN_OPENING_EVENTS = {
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
    /**
     * The model settings `start` gave (see `CallSettings`): every request of the run is
     * compiled with them until a `settings.changed`. Absent when none were given.
     */
    settings: CallSettingsSchema.optional(),
    /**
     * Set on the first event of a session's stream (a stream of `session.appended` beside the
     * session's runs): the session it records. Such a stream is never driven as a run.
     */
    sessionOf: z.string().optional(),
    /**
     * A run that continues a session: the session's earlier runs, oldest first, each with the
     * length and head hash it had when this run started (every one had ended). Their
     * conversations are in this run's context, and a rebuild of its requests refuses
     * (SESSION_MISMATCH) when one no longer matches. Absent for a session's first run.
     */
    continues: z
      .array(z.object({ runId: z.string().min(1), length: z.number().int().positive(), headHash: z.string() }))
      .min(1)
      .optional(),
    /**
     * What produced this run (see `ReleaseSchema`): pinned so a resume can tell whether the
     * running release may drive it, and a replay knows what it is replaying.
     */
    release: ReleaseSchema,
  }),
  /**
   * The run's delegation (what the task may do, and how many times), pinned before the first
   * model call, in the run's first transaction: a resume decides with this one, never with
   * one given again. Absent for a run without a delegation.
   */
  "run.delegated": z.object({ delegation: DelegationSchema }),
  /**
   * A `resume` gave model settings: `settings` is what is in effect from the next compiled
   * request on (the run's settings with the given fields replaced). A request journaled
   * before it is sent again as it was.
   */
  "settings.changed": z.object({ settings: CallSettingsSchema }),
  /**
   * `offered`: the tools offered to this turn, frozen (their revision digests and the digest of
   * the set). Absent in journals written before the registry (every pinned tool was offered).
   */
  "turn.started": z.object({
    ...turnRef,
    index: z.number().int().positive(),
    offered: z.object({ digest: HashSchema, tools: z.array(z.object({ name: z.string(), digest: HashSchema })) }).optional(),
  }),
} as const;

/** The completion check of an answer (without verifiers: one event). */
export const COMPLETION_CHECK_EVENTS = {
  "completion.checked": z.object({ ...turnRef, passed: z.boolean(), reason: z.string().optional() }),
} as const;

/** The verifiers of the completion gate. */
export const VERIFIER_EVENTS = {
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
} as const;

/** The run waits, is interrupted, is given input, ends or stops short of an end. */
export const RUN_CLOSING_EVENTS = {
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
   * In a session's stream: run `runId` is the session's next run. Appended (expecting the
   * stream's length) before that run's `run.started`, so two sends to one session are ordered.
   */
  "session.appended": z.object({ runId: z.string().min(1) }),
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
  /**
   * `output-schema`: the final answer did not match the run's output schema; the issues go back to the model.
   * `user`: a message of the run's input after its first (the first is the task), or the
   * first message's images and files, which follow its text. The runtime journals an image or
   * file as an `artifact` reference (the bytes are in the tenant's artifact store) or a URL.
   */
  "input.added": z.object({
    content: z.array(UserPartSchema),
    source: z.enum(["user", "completion-check", "operator", "output-limit", "output-schema", "verifier", "loop-detection", "interrupt"]),
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
