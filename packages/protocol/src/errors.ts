import type { YokeErrorDetailsByCode } from "./error-details.js";

/**
 * The closed table of error codes every Yoke package throws. A code never changes meaning;
 * a new failure gets a new code. `retryable` says whether doing the same thing again can
 * succeed without anything else changing.
 */
export const YOKE_ERROR_CODES = {
  // journal
  JOURNAL_CONFLICT: { retryable: true, summary: "an append named a sequence number that is no longer the next one" },
  JOURNAL_CORRUPT: { retryable: false, summary: "stored journal data failed an integrity check" },
  JOURNAL_CHAIN_BROKEN: { retryable: false, summary: "an event's hash or predecessor hash does not match" },
  JOURNAL_SCHEMA_UNSUPPORTED: { retryable: false, summary: "the journal file was written by an unknown schema version" },
  JOURNAL_CLOSED: { retryable: false, summary: "the journal store was closed" },
  JOURNAL_UNAVAILABLE: { retryable: true, summary: "the journal store was busy, locked or failed to read or write" },
  JOURNAL_INVALID_APPEND: { retryable: false, summary: "an append was malformed (empty batch, bad event, wrong first event)" },
  JOURNAL_TRUNCATED: { retryable: false, summary: "acknowledged events are missing: the journal is behind its head witness" },
  JOURNAL_WITNESS_INVALID: { retryable: false, summary: "the journal's head witness is missing, unreadable, or names a head the journal does not hold" },
  JOURNAL_NOT_INITIALIZED: { retryable: false, summary: "the file exists but holds no journal, and the caller did not ask for one to be created" },
  JOURNAL_READ_ONLY: { retryable: false, summary: "the journal was opened read-only" },
  JOURNAL_KEY_UNAVAILABLE: { retryable: false, summary: "the key a keyed chain needs could not be had from the key provider" },
  JOURNAL_EVENT_TOO_LARGE: {
    retryable: false,
    summary: "an event is larger than the journal's maxEventBytes (its canonical JSON, envelope and hash included); nothing was appended",
  },
  RUN_LEASE_HELD: { retryable: true, summary: "another owner holds a live lease on this run" },
  RUN_LEASE_LOST: { retryable: false, summary: "this writer's lease on the run expired and was taken over, or was released; it may not append" },
  RUN_NOT_FOUND: { retryable: false, summary: "no run with this id exists for this tenant" },
  RUN_ALREADY_EXISTS: { retryable: false, summary: "a run with this id already exists" },
  RUN_ID_INVALID: {
    retryable: false,
    summary: "a tenant or run id holds a control character (C0, DEL, C1) or a bidi control, which could act on a terminal or disguise the id",
  },
  RUN_FINISHED: { retryable: false, summary: "the run has already reached a final outcome" },
  SESSION_BUSY: { retryable: true, summary: "the session's last run has not ended (or is still starting): a send waits for it or is refused" },
  SESSION_MISMATCH: { retryable: false, summary: "an earlier run a session run continues no longer has the length and head hash it pinned" },
  EVENT_INVALID: { retryable: false, summary: "an event does not match the canonical event schema" },
  // model and provider
  PROVIDER_UNEXPECTED_CALL: { retryable: false, summary: "a model was called when no call was expected" },
  PROVIDER_UNCONSUMED_STEPS: { retryable: false, summary: "a scripted model still had steps when the run ended" },
  PROVIDER_RATE_LIMITED: { retryable: true, summary: "the provider asked to slow down" },
  PROVIDER_UNAVAILABLE: { retryable: true, summary: "the provider failed or could not be reached" },
  PROVIDER_REQUEST_INVALID: { retryable: false, summary: "the provider rejected the request" },
  PROVIDER_RESPONSE_INVALID: { retryable: false, summary: "the provider's response could not be understood" },
  PROVIDER_STREAM_CUT: { retryable: true, summary: "a streamed response ended before it was complete" },
  PROVIDER_TIMEOUT: { retryable: true, summary: "a model call did not finish within its deadline" },
  PROVIDER_ADMISSION_REJECTED: { retryable: false, summary: "the target model cannot represent this request" },
  // context
  REPLAY_DIVERGED: {
    retryable: false,
    summary: "replaying a recorded run through the current code journaled something else than was recorded (details name the first differing event)",
  },
  REPLAY_UNSUPPORTED: { retryable: false, summary: "a recorded run cannot be replayed: its journal lacks what replay needs, or the harness cannot be rebuilt" },
  REQUEST_MISMATCH: { retryable: false, summary: "a request rebuilt from the journal does not hash to the request journaled for it" },
  CONTEXT_OVERFLOW: { retryable: false, summary: "mandatory context (or the history, without compaction) does not fit the window" },
  // tools
  TOOL_UNKNOWN: { retryable: false, summary: "the model called a tool that does not exist" },
  TOOL_INPUT_INVALID: { retryable: false, summary: "tool arguments were not valid JSON or did not match the input schema" },
  TOOL_DUPLICATE_CALL_ID: { retryable: false, summary: "a response used one tool-call id twice" },
  TOOL_FAILED: { retryable: false, summary: "a tool handler threw or reported failure" },
  TOOL_TIMEOUT: { retryable: true, summary: "a tool did not finish within its timeout" },
  TOOL_INTERRUPTED: { retryable: false, summary: "a tool call was cut by a crash and its effect is unknown" },
  TOOL_OUTCOME_UNKNOWN: { retryable: false, summary: "a dispatched effect may or may not have happened (timeout, cancellation, lost acknowledgement)" },
  TOOL_CALL_LIMIT: { retryable: false, summary: "a response proposed more tool calls than one turn may run" },
  TOOL_INPUT_TOO_LARGE: { retryable: false, summary: "a tool call's arguments are larger than the run's maxToolInputBytes; they were not kept" },
  TOOL_OUTPUT_TOO_LARGE: { retryable: false, summary: "a tool's output is larger than the journal may hold and no artifact store was given" },
  ARTIFACT_MISSING: { retryable: false, summary: "an artifact the journal references by digest is not in the artifact store" },
  ARTIFACT_CORRUPT: { retryable: false, summary: "an artifact's bytes do not hash to the digest the journal references" },
  ARTIFACT_UNAVAILABLE: { retryable: true, summary: "the artifact store failed to read or write (permissions, disk full, I/O error)" },
  ARTIFACT_SCOPE_INVALID: { retryable: false, summary: "an artifact store call named no tenant (its scope needs a non-empty string tenantId)" },
  TOOL_OUTPUT_INVALID: { retryable: false, summary: "a tool's structured output did not match its output schema" },
  TOOL_COMPENSATION_FAILED: { retryable: false, summary: "undoing a committed effect failed" },
  TOOL_FENCED: {
    retryable: false,
    summary: "a backend refused a write whose fencing token is older than the newest it has seen for that key or resource: the writer lost the run",
  },
  TOOL_NOT_OFFERED: { retryable: false, summary: "the model called a tool that exists but was not offered to this turn" },
  TOOL_DRIFTED: { retryable: false, summary: "the tool's live definition differs from the revision the run pinned, and no declared rule re-admits it" },
  TOOL_WITHDRAWN: { retryable: false, summary: "the tool was withdrawn from the registry; no run may call it" },
  TOOL_REVISION_UNAVAILABLE: { retryable: false, summary: "no registered source can run the revision the run pinned" },
  TOOL_SOURCE_UNAVAILABLE: {
    retryable: true,
    summary: "a tool source (an MCP server) could not be started or reached, or its connection was lost before a call was sent",
  },
  TOOL_SOURCE_INVALID: { retryable: false, summary: "a tool source broke its protocol: a malformed listing or message" },
  TOOL_REGISTRATION_CONFLICT: { retryable: false, summary: "a tool name is already registered with another revision from another origin" },
  ACTION_TRANSITION_ILLEGAL: { retryable: false, summary: "an action event does not follow from the action's state" },
  IDEMPOTENCY_KEY_REUSED: { retryable: false, summary: "an idempotency key was reused with different arguments" },
  // policy, approvals and capabilities
  POLICY_DENIED: { retryable: false, summary: "the policy denied the call (no rule allows its whole tuple, or a rule denies it)" },
  POLICY_INVALID: { retryable: false, summary: "policy rules failed their schema or cannot be loaded" },
  POLICY_CHANGED: {
    retryable: false,
    summary:
      "the policy in force when a later attempt of an action was due no longer allows it (its decision changed since the action was authorized); the attempt was not dispatched",
  },
  DELEGATION_CHANGED: {
    retryable: false,
    summary: "a resume was given a delegation other than the one the run pinned when it started; nothing was appended",
  },
  RELEASE_INCOMPATIBLE: {
    retryable: false,
    summary:
      "the release running a resume cannot drive the run: the release the run pinned differs in a field the compatibility rule refuses, and no declared migration applies",
  },
  MIGRATION_FAILED: { retryable: false, summary: "a declared release migration threw; the failure is journaled and the run stays on its pinned release" },
  APPROVAL_DENIED: { retryable: false, summary: "a person denied the approval an action was parked for" },
  APPROVAL_INVALID: {
    retryable: false,
    summary: "an approval no longer matches the action (arguments, tool revision, resource or policy revision, tenant or principal changed)",
  },
  APPROVAL_EXPIRED: { retryable: false, summary: "an approval expired before the action was dispatched" },
  APPROVAL_NOT_FOUND: { retryable: false, summary: "no parked action waits for this approval id in this run" },
  CAPABILITY_INVALID: { retryable: false, summary: "a capability token is malformed, forged or unknown to the broker" },
  CAPABILITY_EXPIRED: { retryable: false, summary: "a capability expired" },
  CAPABILITY_REVOKED: { retryable: false, summary: "a capability, or one of its ancestors, was revoked" },
  CAPABILITY_SCOPE: { retryable: false, summary: "a capability does not cover this resource, verb or action" },
  CAPABILITY_ESCALATION: { retryable: false, summary: "an attenuation asked for more than its parent holds" },
  CAPABILITY_RESOURCE_INVALID: {
    retryable: false,
    summary:
      "a resource a capability names, or a use of one, does not canonicalize (a path above its root, malformed or double percent-encoding, a backslash, user info in a URL)",
  },
  TENANT_MISMATCH: { retryable: false, summary: "a record of one tenant was asked for on behalf of another" },
  // budgets, verifiers, loops and subagents
  BUDGET_EXHAUSTED: { retryable: false, summary: "a reservation does not fit in what is left of a budget (details.dimension names the binding one)" },
  BUDGET_INVALID: { retryable: false, summary: "a budget, a reservation or a pricing table is malformed, or a charge names an unknown reservation" },
  PRICING_MISSING: { retryable: false, summary: "the pricing table has no price for a model a run may call, so its spend cannot be bounded" },
  VERIFIER_FAILED: {
    retryable: false,
    summary: "a verifier itself failed to run (it threw, its command could not start, it timed out), as opposed to a verdict that did not pass",
  },
  LOOP_DETECTED: { retryable: false, summary: "the model repeated the same call signature after it was steered away from it" },
  RUN_NOT_WAITING: { retryable: false, summary: "the run does not wait for what the call answers (no refusal, escalation or approval pending)" },
  SUBAGENT_FAILED: { retryable: false, summary: "a child run ended without a result its parent's schema accepts" },
  // runtime and configuration
  CONFIG_INVALID: { retryable: false, summary: "a factory was given an invalid option" },
  USER_MEDIA_INVALID: {
    retryable: false,
    summary: "an image or file of user input is malformed: bytes that are not valid base64 or not the media type the part claims (details.part names it)",
  },
  DEPENDENCY_MISSING: { retryable: false, summary: "an optional peer dependency a feature needs is not installed (details.package names it)" },
  DUPLICATE_ID: { retryable: false, summary: "an id source produced an id that was already used" },
  CANCELLED: { retryable: false, summary: "the operation was cancelled by its caller" },
  // telemetry
  EXPORT_FAILED: { retryable: true, summary: "a telemetry exporter could not deliver: the collector refused the data or could not be reached" },
  // testkit
  TESTKIT_EXPECTATION_FAILED: { retryable: false, summary: "code under test did not do what a testkit helper expected of it" },
  INTERNAL: { retryable: false, summary: "an invariant inside Yoke did not hold (a bug)" },
} as const satisfies Record<string, { retryable: boolean; summary: string }>;

export type YokeErrorCode = keyof typeof YOKE_ERROR_CODES;

const MARKER = Symbol.for("@yoke/protocol.YokeError");

/**
 * The details of an error with code `C` (`YokeErrorDetailsByCode`), read-only: the members the
 * code declares, typed, and any other member as `unknown` (errors also come from other
 * installed copies of this package, and are read back from JSON). Narrow with
 * `YokeError.hasCode` to read a code's members typed.
 */
export type YokeErrorDetails<C extends YokeErrorCode = YokeErrorCode> = DetailsTable[C];

type DetailsTable = {
  readonly [K in YokeErrorCode]: Readonly<
    (YokeErrorDetailsByCode[K] extends undefined ? Record<never, never> : YokeErrorDetailsByCode[K]) & { [key: string]: unknown }
  >;
};

/** The details a raiser of code `C` gives; `undefined` for a code that carries none. */
type DetailsInput<C extends YokeErrorCode> = [YokeErrorCode] extends [C]
  ? Readonly<Record<string, unknown>>
  : C extends YokeErrorCode
    ? YokeErrorDetailsByCode[C]
    : never;

export interface YokeErrorOptions<C extends YokeErrorCode = YokeErrorCode> {
  /** The error that led to this one. */
  cause?: unknown;
  /** Structured, non-secret facts about the failure (ids, sequence numbers, names), typed per code. */
  details?: DetailsInput<C> | undefined;
  /** Overrides the code's default retryability (a provider's 400 vs 408, say). */
  retryable?: boolean;
}

/** The constructor's options: required when the code's details have required members. */
type OptionsArgument<C extends YokeErrorCode> =
  undefined extends DetailsInput<C>
    ? [options?: YokeErrorOptions<C>]
    : Record<never, never> extends DetailsInput<C>
      ? [options?: YokeErrorOptions<C>]
      : [options: YokeErrorOptions<C> & { details: DetailsInput<C> }];

/**
 * The one error class Yoke throws at its public edges.
 *
 * @example
 * ```ts
 * try { await journal.append(scope, 3, drafts); }
 * catch (error) {
 *   if (YokeError.hasCode(error, "JOURNAL_CONFLICT")) { // another writer won seq 3
 *     console.log(error.details.actualSeq);
 *   }
 * }
 * ```
 */
export class YokeError<C extends YokeErrorCode = YokeErrorCode> extends Error {
  readonly code: C;
  readonly retryable: boolean;
  /** Typed by code: `YokeError.hasCode(error, "JOURNAL_CONFLICT")` narrows it to that code's details. */
  readonly details: YokeErrorDetails<C>;
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read by isInstance() through the Symbol.for key, across duplicate installs
  private readonly [MARKER] = true;

  constructor(code: C, message: string, ...[options = {}]: OptionsArgument<C>) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "YokeError";
    this.code = code;
    this.retryable = options.retryable ?? YOKE_ERROR_CODES[code].retryable;
    this.details = Object.freeze({ ...(options.details ?? {}) }) as YokeErrorDetails<C>;
  }

  /** True for any YokeError, even one created by another installed copy of this package. */
  static isInstance(value: unknown): value is YokeError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  /** True when `value` is a YokeError with this code. */
  static hasCode<K extends YokeErrorCode>(value: unknown, code: K): value is YokeError<K> {
    return YokeError.isInstance(value) && value.code === code;
  }

  toJSON(): { name: string; code: YokeErrorCode; message: string; retryable: boolean; details: Readonly<Record<string, unknown>> } {
    return { name: this.name, code: this.code, message: this.message, retryable: this.retryable, details: this.details as Readonly<Record<string, unknown>> };
  }
}
