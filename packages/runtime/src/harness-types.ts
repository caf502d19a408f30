import type { CompactionPolicy, EvidenceItem, PinnedConstraint, TokenCounter } from "@yoke/context-compiler";
import type {
  ApprovalRecord,
  ArtifactStoreV2,
  PolicyEngineV1,
  Clock,
  IdSource,
  JournalV1,
  ModelResponse,
  Outcome,
  ProviderAdapterV1,
  ProviderMetadata,
  RunState,
  SchemaLike,
  ServerToolSpec,
  InferSchemaOutput,
  DiscoveryRequest,
  ToolFilter,
  ToolRegistryV1,
  YokeEvent,
} from "@yoke/protocol";
import type { BudgetOptions } from "./budget/budget-options.js";
import type { SubagentOptions } from "./subagents/subagent-options.js";
import type { AnyTool } from "./define-tool.js";
import type { Logger } from "./logger.js";
import type { Sleep } from "./model-call.js";
import type { Timers } from "@yoke/scheduler";
import type { LeaseOptions } from "./run-lease.js";
import type { CapabilityOptions } from "./capabilities.js";
import type { HumanWaiting, InterruptRequestOptions, LoopControlOptions, WaitingAnswerOptions } from "./loop-control.js";

/** What a completion check is shown: the state after the final response, and that response. */
export interface CompletionContext {
  readonly state: RunState;
  readonly response: ModelResponse;
}

/**
 * A completion check's verdict. A failure with `retry` not false (and turns left) sends
 * `reason` back to the model as new input; otherwise the run ends `verification_failed`.
 */
export type CompletionVerdict = { passed: true; summary?: string } | { passed: false; reason: string; retry?: boolean };

/**
 * Decides whether a model's "done" is true. Never trust "done" unverified: run the tests,
 * check the file, compare the output.
 *
 * @example
 * ```ts
 * const checkCompletion: CompletionCheck = async () =>
 *   existsSync("summary.md") ? { passed: true } : { passed: false, reason: "summary.md does not exist" };
 * ```
 */
export type CompletionCheck = (context: CompletionContext) => Promise<CompletionVerdict>;

/**
 * How the harness compiles each request with `@yoke/context-compiler`. The model id and
 * window come from the provider (`modelId`, `capabilities.contextWindow`). Keep these the
 * same across a run's resumes: a resume recompiles the journaled request and refuses one
 * that does not hash the same (REQUEST_MISMATCH).
 *
 * @example
 * ```ts
 * const context: ContextOptions = {
 *   constraints: [{ id: "constraint:generated", text: "Never edit files under src/generated." }],
 *   compaction: { threshold: 0.8 },
 *   toolOutputBudgetBytes: 8_192,
 *   stopSequences: ["</answer>"],
 *   serverTools: [{ provider: "anthropic", type: "web_search_20250305", name: "web_search", options: { max_uses: 3 } }],
 * };
 * ```
 */
export interface ContextOptions {
  /** `model` (default): the model's tokenizer where one is published, else a declared estimate; `estimated`: always the estimate; or a counter. */
  tokenCounter?: "model" | "estimated" | TokenCounter;
  /** Output headroom reserved first, sent as maxOutputTokens. Default: the provider's `capabilities.maxOutputTokens`. */
  outputReserve?: number;
  /** Without one, a history that outgrows the window stops the run with CONTEXT_OVERFLOW (nothing is dropped). */
  compaction?: CompactionPolicy;
  /** Operator constraints shown on every turn; never dropped, never summarized. */
  constraints?: readonly PinnedConstraint[];
  /** Optional context filled by priority into free tokens. Must be a pure function of the state's transcript (a resume recompiles). */
  evidence?: (state: RunState) => readonly EvidenceItem[];
  /** Budget of one tool result's text the model is shown, in UTF-8 bytes (default 16 KiB); the full text stays in the tool's event (or the artifact store), journaled once. */
  toolOutputBudgetBytes?: number;
  /** Per-tool overrides of `toolOutputBudgetBytes`. */
  toolOutputBudgets?: Readonly<Record<string, number>>;
  /** Sent on every request as `ModelRequest.temperature`. */
  temperature?: number;
  /** Sent on every request as `ModelRequest.toolChoice`. */
  toolChoice?: "auto" | "none" | "required";
  /** Text that ends the model's output where it appears; the adapter refuses more than its `capabilities.maxStopSequences`. */
  stopSequences?: readonly string[];
  /**
   * Tools the provider runs itself (e.g. Anthropic web search), sent on every request; the
   * adapter refuses a type its `capabilities.serverTools` does not list. Their calls and
   * results are journaled verbatim in `model.responded` and sent back on the next request.
   */
  serverTools?: readonly ServerToolSpec[];
  /** Provider-specific settings, keyed by provider id, sent as `ModelRequest.providerOptions`. */
  providerOptions?: ProviderMetadata;
}

/**
 * How to build a harness. Everything with a side effect or a source of nondeterminism is
 * passed in: journal, provider, clock, ids, logger, sleep.
 *
 * @example
 * ```ts
 * const harness = createHarness({
 *   journal: createMemoryJournal(),
 *   provider: createScriptedModel([say("done")]),
 *   tools: [echo],
 *   tenantId: "tenant_a",
 *   clock: steppingClock(0, 1),
 *   ids: sequentialIdSource(),
 *   maxToolCallsPerTurn: 16, // calls past 16 in one response go back as TOOL_CALL_LIMIT
 *   maxConcurrentTools: 4, // at most 4 handlers at once
 *   modelCallTimeoutMs: 120_000, // PROVIDER_TIMEOUT after 2 minutes, then retried
 *   artifacts: createFileArtifactStore({ directory: "runs/artifacts" }), // tool outputs past 256 KiB go here
 * });
 * ```
 */
export interface HarnessOptions<OutputSchema extends SchemaLike | undefined = SchemaLike | undefined> extends LoopControlOptions {
  /**
   * Default: a new in-memory journal (`createMemoryJournal()`): runs last as long as the
   * process. Pass a SQLite journal to survive a restart, or just its path: `"./yoke.db"`
   * opens a SQLite journal there on first use, and `harness.close()` closes it. Only `start`
   * (and `startOrResume` with `createJournal: true`) creates a missing file; every other call
   * on a path with no journal is JOURNAL_NOT_INITIALIZED and leaves nothing behind. A path needs the optional peer `better-sqlite3` (DEPENDENCY_MISSING names it
   * on first use when it is not installed); an open failure is the typed error of the
   * harness call that needed the journal.
   */
  journal?: JournalV1 | string;
  provider: ProviderAdapterV1;
  /**
   * Default: none. Sugar for a local registry of these tools (`createToolRegistry({ tools })`
   * from @yoke/tool-registry): a run pins their revisions like any registry's. Give either
   * `tools` or `registry`, not both (CONFIG_INVALID).
   */
  tools?: readonly AnyTool[];
  /**
   * Where runs get their tools (`@yoke/tool-registry`, local and MCP origins). A run pins
   * `registry.snapshot()` in `run.started.toolSnapshot` and calls only those revisions (or
   * ones a declared rule re-admitted, journaled as `tool.readmitted`), on every resume too;
   * each turn offers what `registry.discover` gives for `discovery` (journaled in
   * `turn.started.offered`); each `action.admitted` names the revision it runs. A call to a
   * pinned tool whose live definition drifted is journaled as `tool.drifted` and refused
   * (TOOL_DRIFTED, a tool error the model sees) unless a re-admission rule matches; an
   * in-flight action whose revision drifted while no process ran it stops the run with
   * TOOL_DRIFTED. Tools of a non-local origin reach the context compiler as untrusted.
   *
   * @example
   * ```ts
   * const registry = createToolRegistry({
   *   tools: [readNotes],
   *   readmission: [{ id: "descriptions-ok", changes: ["description"], origin: { kind: "mcp-stdio" } }],
   * });
   * await registry.addSource(mcpStdioSource({ command: "node", args: ["server.mjs"] }), { trustDomain: "third-party" });
   * const harness = createHarness({ provider, registry, discovery: { principal: "user_42", filter: { capabilities: ["fs.read"] } } });
   * ```
   */
  registry?: ToolRegistryV1;
  /**
   * Who asks for tools, and with what filter, on each turn of a run: `{ principal, filter? }`
   * (the task is the run's), or a function of the run's state that returns the whole
   * `DiscoveryRequest`. Default: the tenant as principal, no filter (every callable pinned tool
   * is offered). What a turn was offered is journaled, so a resume never asks again.
   *
   * @example
   * ```ts
   * createHarness({ provider, registry, discovery: { principal: "user_42", filter: { capabilities: ["fs.read"], owners: ["docs-team"] } } });
   * // per run: read-only tools once the run has used half its turns
   * createHarness({
   *   provider,
   *   registry,
   *   discovery: (state) => ({ principal: "user_42", task: state.task, ...(state.turns >= 5 ? { filter: { sideEffects: ["none"] } } : {}) }),
   * });
   * ```
   */
  discovery?: { readonly principal: string; readonly filter?: ToolFilter } | ((state: RunState) => DiscoveryRequest);
  /** Default `"default"`, for single-tenant use. Every journal read and write is scoped by it. */
  tenantId?: string;
  /** Default: the system clock. */
  clock?: Clock;
  /** Default: ULIDs from `clock`. */
  ids?: IdSource;
  /** A logger: pino (the default, silent), `console`, or anything with debug/info/warn/error (see `Logger`). The harness logs ids, seqs, tool names, durations and error codes only. */
  logger?: Logger;
  systemPrompt?: string;
  /** Turns a run may start before it ends `budget_exhausted`. Default 20. Pinned in `run.started`. */
  maxTurns?: number;
  /**
   * Gates `end_turn`: only a passing check ends a run `verified_success`. Default: none, and
   * a final answer ends the run `completed` (unverified: nothing checked it).
   */
  checkCompletion?: CompletionCheck;
  /**
   * Called after each durable append, once per stored event, in order, with the event typed
   * (the `YokeEvent` union: narrow on `event.type` or with `isEventOfType`). A throw
   * propagates (the run stays resumable).
   */
  onEvent?: (event: YokeEvent) => void;
  /** Recorded in `run.started` as `release.runtime`. Default `@yoke/runtime@<version>`. */
  runtimeVersion?: string;
  /** Extra attempts for a retryable provider error (rate limit, unavailable, cut stream). Default 2. */
  modelRetries?: number;
  /**
   * Deadline of one model call attempt, in ms. Default 600 000 (10 minutes). On expiry the
   * attempt's signal aborts and it fails with PROVIDER_TIMEOUT, which is retried like any
   * retryable provider error (`modelRetries`); each failed attempt is journaled as `model.failed`.
   */
  modelCallTimeoutMs?: number;
  /**
   * How many responses in a row may have a tool call cut by the output limit
   * (`tool-call-truncated`, stop reason `max_tokens`) and still be answered. Default 2. Such a
   * call is never run; the runtime journals a note for the model (`input.added`, source
   * `output-limit`) naming the call, and asks again (in the same turn, or after the
   * response's complete calls have run). One more cut response in a row ends the run
   * `escalated`. Not pinned in the journal: a resume with another value decides with it.
   */
  truncatedCallRetries?: number;
  /**
   * Tool calls one model response may run. Default 64. Calls past it, in proposal order, are
   * not run: they are answered together by one `tool.excess_rejected` (TOOL_CALL_LIMIT), whose
   * result the first of them gets; the others are left out of the conversation, so the next
   * request stays bounded however many calls the model proposed. Pinned in `run.started`
   * (`limits.maxToolCallsPerTurn`), so a resume decides the same way.
   */
  maxToolCallsPerTurn?: number;
  /**
   * Tool handlers of one run that may run at once. Default 8. The others wait for a slot, in
   * the order they become ready (proposal order among calls ready together); conflicting
   * calls still run in proposal order. Not pinned: changing it never changes a decision.
   */
  maxConcurrentTools?: number;
  /** How retries wait. Default: a real timer. Tests inject an instant one. */
  sleep?: Sleep;
  /** Timers that arm tool deadlines, model call deadlines and the inbox watch during a model call (`interrupts.pollMs`). Default: the real ones. Tests inject fake ones. */
  timers?: Timers;
  /**
   * UTF-8 bytes of one tool result (its text, structured output and error message) one
   * journal event may hold inline. Default 262 144 (256 KiB). A larger result is never
   * journaled whole: with `artifacts`, the whole result is put there first and the event
   * keeps its first `maxEventOutputBytes` of text and the artifact's ref
   * (`result.truncation.artifact`); without a store (or when the store refuses it as too
   * large), the model is shown a TOOL_OUTPUT_TOO_LARGE error instead, the action stays as it
   * settled, and the run goes on. Pinned in `run.started` (`limits.maxEventOutputBytes`).
   */
  maxEventOutputBytes?: number;
  /**
   * UTF-8 bytes of one tool call's arguments (as the model sent them) a run keeps. Default
   * 1 048 576 (1 MiB). A larger call is never run and its arguments are never journaled: the
   * response is journaled with the call's arguments replaced by `{}` and their size and
   * SHA-256 (`omitted`), and the model is told TOOL_INPUT_TOO_LARGE. Pinned in `run.started`
   * (`limits.maxToolInputBytes`), so a resume decides the same way.
   */
  maxToolInputBytes?: number;
  /**
   * Where tool results larger than `maxEventOutputBytes` go, content-addressed and scoped to
   * the run's tenant (see `createFileArtifactStore` in @yoke/journal). Each is stored once per
   * tenant and is durable before the event that references it; pass the same store to
   * `reconstructRequest`, which reads as the run's tenant. Default: none.
   */
  artifacts?: ArtifactStoreV2;
  /**
   * A capability broker (`createCapabilityBroker` from `@yoke/policy/capabilities`): each
   * dispatched attempt gets `context.capability`, scoped to the run's tenant, the resource and
   * verb of the tool's `policy` facts for its input (`tool:<name>` and the tool's name by
   * default), the action and an expiry `ttlMs` after dispatch (default the tool's timeout, on
   * the injected clock); it is revoked when the attempt settles. The token is cut out of
   * whatever the handler returns: a result carries the backend's receipt, never the credential.
   * Default: none (`context.capability` is undefined).
   */
  capabilities?: CapabilityOptions;
  /**
   * Secrets to keep out of everything the harness writes: every journal event (task, tool
   * inputs, results, errors, receipts), every line it logs, and the message and details of
   * every error it throws, with their base64 and URL encodings (see `createRedactor`). What
   * the journal holds is also what the model is shown. Each at least 8 characters. To redact
   * your own log lines too, build pino with `hooks: { streamWrite: createRedactor(secrets).redactText }`.
   */
  secrets?: readonly string[];
  /** How requests are compiled: token counting, output reserve, compaction, pinned constraints, evidence. */
  context?: ContextOptions;
  /**
   * Run ownership, when the journal offers leases (both Yoke stores do): `start` and `resume`
   * take the run's lease first, renew it while they run and release it when they return; every
   * append carries it and every tool gets its fencing token (`context.fencingToken`). An
   * `executing` attempt left by another process is only reconciled once that process's lease
   * has lapsed (or its process is gone). `false` takes no lease. Default: see `LeaseOptions`.
   */
  lease?: LeaseOptions | false;
  /**
   * Ask for structured output: any Standard Schema (zod 4 or 3, valibot, arktype) or
   * `jsonSchema(json, { validate })`. Every request carries its JSON Schema as
   * `responseFormat` (the provider constrains the answer where it can); the final answer
   * must be JSON the schema's own validator accepts, and `result.output` is the validated
   * value, typed from the schema. An answer that does not match goes back to the model
   * (`outputRetries` times), then the run ends `verification_failed`. The accepted JSON is
   * journaled in `run.completed` (`output`). A refusal is never output: the run waits for a person.
   *
   * @example
   * ```ts
   * const harness = createHarness({ provider, output: z.object({ city: z.string(), celsius: z.number() }) });
   * const { output } = await harness.start("Where is it warmest today?");
   * output?.celsius; // number
   * ```
   */
  output?: OutputSchema;
  /** Answers that do not match `output` sent back to the model before the run ends `verification_failed`. Default 2. Not pinned. */
  outputRetries?: number;
  /**
   * The policy every proposed call is decided by (`@yoke/policy`'s `createPolicyEngine`, or any
   * `PolicyEngineV1`), on the whole tuple: tenant, principal and delegated scopes, tool name,
   * revision digest and owner, the tool's policy facts (`tool.policy(input)`; default verb =
   * the tool's name, resource = `tool:<name>`), data classification, side effect, arguments
   * digest and the provenance of every argument value. `allow` admits the call (journaled
   * with the decision and the provenance); `deny` rejects it (`tool.rejected` POLICY_DENIED:
   * the model sees a tool error naming the rule and the reason, the run goes on);
   * `require_approval` parks it (`action.approval_requested`) and the run returns a
   * `WaitingRunResult` until a person calls `approve` or `deny` and the run is resumed.
   * Default: none, and every call is allowed by rule `default`, as before policy.
   *
   * @example
   * ```ts
   * const harness = createHarness({ provider, tools, policy: createPolicyEngine(rules), principal: { id: "user_42", scopes: ["payments"] } });
   * const result = await harness.start("Pay my rent");
   * if (result.waiting) {
   *   await harness.approve(result.runId, result.waiting.approvals[0]!.approvalId, { approver: "ops@example.com" });
   *   await harness.resume(result.runId);
   * }
   * ```
   */
  policy?: PolicyEngineV1;
  /**
   * Who the runs of this harness act for (overridden per run by `StartOptions.principal`):
   * journaled in `run.started.principal` and named by every policy decision. `authenticated`
   * defaults to true (the caller vouches for it), `scopes` (delegated to the run's task) to none.
   * Default: the tenant, unauthenticated, with no scopes.
   */
  principal?: PrincipalOption;
  /** How long an approval request, and a granted approval, holds before it expires, in ms (from the injected clock). Default 3 600 000 (one hour). */
  approvalTtlMs?: number;
  /**
   * Hard limits on what a run may use (`BudgetOptions`): every model call and every dispatch
   * reserves its worst case first and settles to what it used, journaled with the commits the
   * loop makes anyway; a reservation that does not fit ends the run `budget_exhausted`.
   */
  budget?: BudgetOptions;
  /** A `spawn_subagent` tool whose action starts a child run (`SubagentOptions`). */
  subagents?: SubagentOptions;
  /** How a run's owner watches its interrupt inbox (`InterruptOptions`). */
  interrupts?: InterruptOptions;
}

/** `HarnessOptions.interrupts`. */
export interface InterruptOptions {
  /**
   * While a model call is in flight, the run's owner reads its interrupt inbox every this many
   * ms (on the harness's `timers`) and cuts the call short when another process has cancelled
   * the run. Default 500. A cancel sent through the harness that drives the run needs no wait.
   */
  readonly pollMs?: number;
}

/** Who a run acts for: an id, whether the caller authenticated it (default true) and the scopes delegated to the run. */
export interface PrincipalOption {
  readonly id: string;
  readonly authenticated?: boolean;
  readonly scopes?: readonly string[];
}

/**
 * What a run waits for when `start` or `resume` returns before an outcome: `approval`, the
 * approval requests of actions the policy parked (`require_approval`), none decided yet; or
 * `human` (see `HumanWaiting`): a refusal, a content filter or an escalation.
 */
export type RunWaiting = { readonly kind: "approval"; readonly approvals: readonly ApprovalRecord[] } | HumanWaiting;

/**
 * How a `start` or `resume` returns when the run waits for a person: no outcome yet
 * (`outcome` undefined, `waiting` set). Only a harness with a `policy` returns one; narrow on
 * `waiting` (or `outcome`). Decide each approval with `harness.approve` / `harness.deny`,
 * then `resume` the run.
 *
 * @example
 * ```ts
 * const result = await harness.start("Pay my rent");
 * if (result.waiting !== undefined) {
 *   for (const approval of result.waiting.approvals) await harness.deny(result.runId, approval.approvalId, { approver: "me", reason: "not today" });
 *   const done = await harness.resume(result.runId);
 * } else {
 *   result.outcome.status;
 * }
 * ```
 */
export interface WaitingRunResult {
  readonly runId: string;
  readonly outcome: undefined;
  readonly waiting: RunWaiting;
  /** The text parts of the model's last answer, joined ("" when it has not answered). */
  readonly text: string;
  readonly output: undefined;
  readonly state: RunState;
}

/** `harness.approve`'s options: who approves, and until when (default: now + `approvalTtlMs`). */
export interface ApproveOptions {
  readonly approver: string;
  /** Epoch ms (the injected clock's) after which the approval no longer lets the action run. */
  readonly expiresAt?: number;
}

/** `harness.deny`'s options: who denies and why (the model is told the reason). */
export interface DenyOptions {
  readonly approver: string;
  readonly reason: string;
}

/** The type of `result.output` for a harness built with `output: Schema` (`undefined` without one). */
export type OutputOf<OutputSchema> = OutputSchema extends SchemaLike ? InferSchemaOutput<OutputSchema> : undefined;

export interface StartOptions {
  /** Default: a new id. Must be a well-formed run id (`run_…`). */
  runId?: string;
  /** Default: a new id. */
  sessionId?: string;
  /**
   * Aborting ends the run `cancelled` at the next safe point (never between a tool call and
   * its result). A model call in flight is abandoned at once, whether or not the provider
   * honours the signal (journaled `model.failed` CANCELLED, its budget settled); a tool call
   * that would take another attempt is not retried.
   */
  signal?: AbortSignal;
  /** Who this run acts for; default: the harness's `principal`. Journaled in `run.started.principal`. */
  principal?: PrincipalOption;
}

export interface ResumeOptions extends WaitingAnswerOptions {
  signal?: AbortSignal;
  /**
   * When another process holds the run's lease: `false` (default) fails at once with
   * RUN_LEASE_HELD (retryable); `true` waits until it lapses or is released; a number waits at
   * most that many milliseconds.
   */
  waitForLease?: boolean | number;
}

/** `startOrResume`: a start's options with a required run id, and a resume's lease wait. */
export interface StartOrResumeOptions extends StartOptions {
  runId: string;
  waitForLease?: boolean | number;
  /**
   * With a harness built on a journal path (`journal: "./yoke.db"`): `true` creates the
   * journal file when there is none, for the first launch of a program. Default `false`: a
   * path with no journal is JOURNAL_NOT_INITIALIZED, because a journal that vanished (its
   * database, `-wal` and head witness deleted) would otherwise start the run again and repeat
   * every effect it already had. Pass `true` only when you know this is a first launch (a
   * fresh deployment, a new working directory); a journal passed in as an object ignores it
   * (open that with `create: false` where a journal must exist).
   */
  createJournal?: boolean;
}

/**
 * How a `start` or `resume` ended: the outcome, the final answer's text and the final state.
 *
 * @example
 * ```ts
 * const result = await harness.start("What is 2 + 3?");
 * if (result.waiting) console.log("waiting for a person:", result.waiting.kind);
 * else if (result.outcome.status === "verified_success") console.log(result.text); // "2 + 3 = 5"
 * ```
 */
export interface RunResult<Output = unknown> {
  readonly runId: string;
  readonly outcome: Outcome;
  /** The text parts of the model's last answer, joined; never its refusal parts. "" when it has not answered. */
  readonly text: string;
  /**
   * With the harness's `output` schema: the final answer as that schema's validated value,
   * when the run ended `completed` or `verified_success`; undefined otherwise.
   */
  readonly output: Output | undefined;
  readonly state: RunState;
  /** Never set on a finished run: see `WaitingRunResult`. */
  readonly waiting?: undefined;
}

/**
 * The agent loop over one journal, provider and tool set. Every state change is journaled
 * before it is acted on, so any run can be resumed from its log by a fresh harness.
 *
 * @example
 * ```ts
 * const { runId, outcome } = await harness.start("Summarize notes.txt");
 * // after a crash, in a new process:
 * const result = await harness.resume(runId);
 * for await (const event of harness.events(runId)) {
 *   if (event.type === "run.failed") console.log(event.data.code, event.data.requestId);
 * }
 * ```
 */
export interface Harness<Output = unknown> {
  /** Starts a run and drives it to an outcome, or until it waits for a person (`result.waiting`: an approval, a refusal, a content filter, an escalation). Rejects on a non-retryable provider error (resume later). */
  start(task: string, options?: StartOptions): Promise<RunResult<Output> | WaitingRunResult>;
  /** Continues a run from its journal; a finished run returns its outcome without calling anything. RUN_NOT_FOUND if unknown. */
  resume(runId: string, options?: ResumeOptions): Promise<RunResult<Output> | WaitingRunResult>;
  /**
   * Starts run `options.runId` with `task` if the journal has no such run, else resumes it:
   * one call that is safe to repeat after a crash at any point, including before the run's
   * first append. Both paths hold the run's lease, so two callers never both start it. On a
   * journal path with no journal it refuses (JOURNAL_NOT_INITIALIZED) unless
   * `createJournal: true` asks for a new one.
   */
  startOrResume(task: string, options: StartOrResumeOptions): Promise<RunResult<Output> | WaitingRunResult>;
  /**
   * Approves a parked action for exactly the binding it was requested with (`approval.granted`,
   * journaled under the run's lease), until `expiresAt` (default now + `approvalTtlMs`). The
   * action runs on the next `resume`, if the binding still holds just before dispatch (same
   * arguments, tool revision, resource revision, policy revision, tenant, principal, not
   * expired); otherwise it is voided and the model is told. APPROVAL_NOT_FOUND for an id no
   * parked action waits on (unknown or already decided); RUN_FINISHED, RUN_NOT_FOUND,
   * RUN_LEASE_HELD as for `resume`.
   *
   * @example
   * ```ts
   * await harness.approve(runId, approvalId, { approver: "ops@example.com" });
   * const result = await harness.resume(runId);
   * ```
   */
  approve(runId: string, approvalId: string, options: ApproveOptions): Promise<ApprovalRecord>;
  /**
   * Denies a parked action (`approval.denied`); on `resume` it fails, not dispatched
   * (APPROVAL_DENIED with the reason, shown to the model), and the run goes on. Errors as `approve`.
   *
   * @example
   * ```ts
   * await harness.deny(runId, approvalId, { approver: "ops@example.com", reason: "unknown payee" });
   * ```
   */
  deny(runId: string, approvalId: string, options: DenyOptions): Promise<ApprovalRecord>;
  /**
   * Interrupts a run, from this process or any other sharing the journal: `{ input }` adds a
   * person's input (`input.added` source `interrupt`) at the run's next turn boundary (or
   * answers a wait); `{ cancel: reason }` ends it `cancelled` at its next step, never between
   * a tool call and its result (the batch in flight settles first). A cancel cuts a model call
   * in flight short (`model.failed` CANCELLED, its budget settled): at once when this harness
   * drives the run, else within `interrupts.pollMs`. The request goes to the
   * run's interrupt inbox (a stream beside the run that needs no lease); the run's owner lands
   * it and acknowledges it (`interrupt.landed`) in the same append, so it lands exactly once,
   * also across a crash. A run nobody drives lands it on its next `resume`. RUN_NOT_FOUND,
   * RUN_FINISHED.
   *
   * @example
   * ```ts
   * await harness.interrupt(runId, { input: "Use the staging database, not prod." });
   * await harness.interrupt(runId, { cancel: "the customer withdrew the request" });
   * ```
   */
  interrupt(runId: string, options: InterruptRequestOptions): Promise<{ readonly interruptId: string }>;
  /** The run's state, folded from its journal. RUN_NOT_FOUND if unknown. */
  getState(runId: string): Promise<RunState>;
  /**
   * The run's events, streamed from the journal, each validated once and typed (the
   * `YokeEvent` union: `switch (event.type)` types `event.data`). RUN_NOT_FOUND if unknown;
   * EVENT_INVALID for an event that is not one of Yoke's.
   */
  events(runId: string): AsyncIterable<YokeEvent>;
  /**
   * Closes what the harness opened itself: the SQLite journal of `journal: "<path>"`. A
   * journal passed in as an object is the caller's and stays open. Calls after `close()`
   * that need the journal reject with JOURNAL_CLOSED.
   *
   * @example
   * ```ts
   * const harness = createHarness({ journal: "./yoke.db", provider });
   * const { runId } = await harness.start("Summarize notes.txt");
   * await harness.close(); // a later harness on "./yoke.db" can resume(runId)
   * ```
   */
  close(): Promise<void>;
}
