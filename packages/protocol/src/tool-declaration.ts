import type { ActionId, AttemptId } from "./ids.js";
import type { JsonValue, ToolSpec } from "./model.js";
import type { StandardSchemaV1 } from "./standard-schema.js";
import type { Capability } from "./capabilities.js";
import type { ToolPolicyFacts } from "./policy.js";
import type { DataClassification, NetworkPolicy } from "./tool-contract.js";

/** What running a tool twice does to the world. */
export type SideEffectClass = "none" | "idempotent" | "reversible" | "irreversible";

/** The resources a call reads and writes, as opaque names (`file:notes.md`, `account:42`). `"*"` is every resource. */
export interface ToolAccess {
  readonly reads: readonly string[];
  readonly writes: readonly string[];
}

/** What a handler is told about the call it serves. */
export interface ToolCallContext {
  /** Stable across attempts: the idempotency key to hand to every external write. */
  readonly actionId: ActionId;
  /** The same as `actionId`, named for what it is for. */
  readonly idempotencyKey: string;
  readonly attemptId: AttemptId;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Aborted at the deadline or when the run is cancelled: stop and reject. */
  readonly signal: AbortSignal;
  /**
   * The fencing token of the run's lease this call runs under (absent when the journal
   * offers no leases). Tokens come from one counter per journal store, so they only grow,
   * across runs too: a backend that stores the highest token it has seen per key or resource
   * and refuses a write carrying a lower one (TOOL_FENCED) can never be written by a process
   * that lost the run while this call was in flight. Reconciliation and compensation get the
   * same token (`FencingContext`), so they raise the backend's fence as well.
   */
  readonly fencingToken?: number;
  /**
   * A short-lived capability for this action (scoped to tenant, resource, verb, action and
   * expiry), when the harness has a capability broker: what the tool presents to its backend
   * instead of a long-lived secret. Never journaled or logged.
   */
  readonly capability?: Capability;
  /**
   * The run this call serves (tenant, session, run), when the runtime says: what a tool that
   * keeps per-run, per-session or per-tenant state (memory, say) keys it by.
   */
  readonly run?: { readonly tenantId: string; readonly sessionId: string; readonly runId: string };
}

/** A handler's answer: text for the model, optional structured output, and a receipt that proves the effect. */
export type ToolOutput = string | { content: string; output?: JsonValue; receipt?: JsonValue };

/** A reconciliation's answer: did the effect of this action happen? */
export type ReconcileResult =
  | { readonly status: "applied"; readonly receipt?: JsonValue; readonly content?: string }
  | { readonly status: "not_applied" }
  | { readonly status: "unknown"; readonly reason?: string };

/**
 * The fencing token a reconciliation or compensation runs under: the token of the run's
 * lease held by the process asking (absent when the journal offers no leases). A backend
 * that records it as seen for the action's key or resource refuses every later write of an
 * older owner, so a paused process that wakes after another one reconciled cannot apply the
 * effect a second time.
 */
export interface FencingContext {
  readonly fencingToken?: number;
}

/**
 * What a reconciliation is told, besides the action id and receipt it always got as its
 * first two arguments: the fencing token to present to the backend.
 */
export interface ReconcileContext extends FencingContext {
  readonly actionId: ActionId;
  readonly receipt: JsonValue | undefined;
}

/** What a compensation is told: the key it must be idempotent under, the receipt of the effect it undoes, and the fencing token. */
export interface CompensationContext extends FencingContext {
  readonly actionId: ActionId;
  /** `<actionId>:compensate`: a compensation re-run after a crash must not undo twice. */
  readonly idempotencyKey: string;
  readonly receipt: JsonValue | undefined;
  readonly signal: AbortSignal;
}

/**
 * The part of a tool's declaration execution needs. A tool is offered to the model by its
 * `spec`; the scheduler runs it by the rest.
 *
 * @example
 * ```ts
 * const transfer: ToolDeclarationV1<{ to: string; cents: number }> = {
 *   specificationVersion: "v1",
 *   name: "transfer",
 *   spec: { name: "transfer", description: "Send money.", inputSchema: { type: "object" } },
 *   input: z.object({ to: z.string(), cents: z.number().int() }),
 *   sideEffect: "irreversible",
 *   timeoutMs: 5_000,
 *   access: ({ to }) => ({ reads: [], writes: [`account:${to}`] }),
 *   execute: async (input, { idempotencyKey }) => bank.transfer({ ...input, idempotencyKey }),
 *   reconcile: async (actionId) => ((await bank.find(actionId)) ? { status: "applied" } : { status: "not_applied" }),
 * };
 * ```
 */
/** A tool's loop-detection settings (`ToolDeclarationV1.loop`). */
export interface ToolLoopPolicy {
  readonly threshold?: number;
  readonly optOut?: string;
  /**
   * Argument fields whose letter case does not change what the call does (a case-insensitive
   * file system, a search query, an e-mail address): dotted paths into the arguments
   * (`"path"`, `"filter.owner"`; arrays are looked through). Loop detection compares those
   * strings case-folded, so `README.md` and `readme.md` are one call. Only what is declared:
   * case is never guessed from the values.
   *
   * @example
   * ```ts
   * loop: { caseInsensitive: ["path"] }
   * ```
   */
  readonly caseInsensitive?: readonly string[];
}

/**
 * A tool declaration of any input type: what a registry, a scheduler or an admission step
 * holds when it handles tools it did not define. It is `any`-like because a declaration takes
 * its input type in parameters (`execute`, `access`, `policy`, `compensate`), so a
 * `ToolDeclarationV1<{ path: string }>` is not a `ToolDeclarationV1<unknown>`. It is safe for
 * passing a declaration along and reading its fields; a caller that invokes `execute`,
 * `access`, `policy` or `compensate` must hand them the output of the declaration's own
 * `input` schema, never raw arguments.
 */
// biome-ignore lint/suspicious/noExplicitAny: a declaration's input type sits in its functions' parameters (see above)
export type AnyToolDeclaration = ToolDeclarationV1<any>;

export interface ToolDeclarationV1<Input = unknown> {
  readonly specificationVersion: "v1";
  readonly name: string;
  readonly spec: ToolSpec;
  /**
   * Validates the model's arguments (`~standard.validate`, maybe asynchronous); its output is
   * what the handler receives. Any Standard Schema: zod 3 or 4, valibot, arktype, `jsonSchema()`.
   */
  // biome-ignore lint/suspicious/noExplicitAny: the schema's input type is whatever the model sends; only its output type is the handler's
  readonly input: StandardSchemaV1<any, Input>;
  /** When present, structured output that fails it turns the result into a TOOL_OUTPUT_INVALID error for the model. */
  readonly output?: StandardSchemaV1;
  readonly sideEffect: SideEffectClass;
  /** Deadline of one attempt, from its lease. */
  readonly timeoutMs: number;
  /** Characters of content the model is shown; longer content is cut and marked truncated. */
  readonly outputBudget?: number;
  /** Attempts an action may take in all (retryable failures and reconciled `not_applied`). Default 3. */
  readonly maxAttempts?: number;
  /** How sensitive what the tool reads or returns is. Default `internal`. Part of the tool's contract digest. */
  readonly dataClassification?: DataClassification;
  /** Where the tool may reach on the network. Default `{ egress: "any" }` (nobody declared otherwise). */
  readonly network?: NetworkPolicy;
  /** Who answers for the tool (a team, a service). */
  readonly owner?: string;
  /**
   * Reads and writes of one call. Default: `none` reads `"*"`, every other class writes
   * `"*"` (it conflicts with everything, so it runs alone in proposal order).
   */
  readonly access?: (input: Input) => ToolAccess;
  /**
   * What one call means to policy: verb, resource, destination, base revision, expected effect,
   * and which arguments are destinations (their provenance is what rules check). Default: verb
   * = the tool's name, resource = `tool:<name>`.
   */
  readonly policy?: (input: Input) => ToolPolicyFacts;
  /**
   * A person approves a call before it runs: `true` for every call, or a function of the
   * parsed arguments (deterministic: it is evaluated once, when the call is admitted, and its
   * verdict journaled). The call is parked as a policy's `require_approval` parks it (rule
   * `tool:needsApproval`), with or without a policy engine; where a policy decides too, the
   * stricter wins (deny, then approval, then allow).
   */
  readonly needsApproval?: boolean | ((input: Input) => boolean);
  /**
   * JSON pointers into the structured output whose values are the system's own records, not
   * third-party text: argument provenance counts a value found there as trusted. A segment
   * `*` matches any array index or key (the pointer with segments `transactions`, `*`,
   * `recipient` names every transaction's recipient). Everything else a tool returns is
   * untrusted. A result every string of which is at these fields leaves the run's influence
   * trusted, so list only values no third party can write (a channel name anyone may create
   * is not one).
   */
  readonly trustedOutputFields?: readonly string[];
  /**
   * How loop detection treats this tool's calls: `threshold`, the repeats of one call signature
   * (revision + arguments + result) that count as a loop (default: the harness's, 3); `optOut`,
   * the declared reason a tool is never counted (a read-only polling tool whose identical
   * calls are the point). The reason lives here, in the declaration, and nowhere else.
   */
  readonly loop?: ToolLoopPolicy;
  execute(input: Input, context: ToolCallContext): Promise<ToolOutput>;
  /**
   * Asked on `uncertain`: did the effect of `actionId` happen? Without it, only `none`/`idempotent`
   * tools can be retried. `context` (a third argument, ignored by older reconcilers) carries the
   * fencing token to present to the backend, so an answer of `not_applied` also fences out the
   * owner whose attempt is in doubt.
   */
  readonly reconcile?: (actionId: ActionId, receipt: JsonValue | undefined, context: ReconcileContext) => Promise<ReconcileResult>;
  /** Undoes a committed effect; must be idempotent under `context.idempotencyKey`. */
  readonly compensate?: (input: Input, context: CompensationContext) => Promise<void>;
}
