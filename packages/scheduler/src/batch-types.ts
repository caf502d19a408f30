// The shapes a batch transaction takes and gives: the calls it admits, what parks one for a
// person, what settling an attempt leads to, and its options.
import type {
  ActionRecord,
  ApprovalBinding,
  ArgumentProvenance,
  Carries,
  Clock,
  Influence,
  IdSource,
  JsonValue,
  PolicyDecision,
  PolicyDelegation,
  AnyToolDeclaration,
} from "@yoke/protocol";
import type { AttemptAuthorizer } from "./attempt-authorization.js";
import type { DispatchItem } from "./attempts.js";

/** A call the runtime accepted: where it came from, and its input as journaled and as parsed. */
export interface ProposedCall {
  readonly turnId: string;
  readonly toolCallId: string;
  readonly tool: AnyToolDeclaration;
  /** The input as journaled (JSON). */
  readonly input: JsonValue;
  /** The input as the tool's schema parsed it: what the handler receives. */
  readonly value: unknown;
}

/**
 * What parks an action for a person: the `require_approval` decision, the provenance, the
 * influence (when the engine was given one), what the call carries (when its tool declares payloads) and the binding; the approval id defaults to the action id's body under `approval_` (one request per action).
 */
export interface ApprovalRequest {
  readonly approvalId?: string;
  readonly policy: PolicyDecision;
  readonly provenance: readonly ArgumentProvenance[];
  readonly influence?: Influence;
  readonly carries?: Carries;
  /** Where the call stood against the run's delegation (absent for a run without one). */
  readonly delegation?: PolicyDelegation;
  readonly binding: ApprovalBinding;
}

/** What settling one attempt leads to: another attempt to dispatch, an escalation, or nothing more. */
export type Settlement =
  | { readonly kind: "done" }
  | { readonly kind: "retry"; readonly item: DispatchItem }
  | { readonly kind: "escalate"; readonly actionId: string; readonly reason: string };

export interface BatchTransactionOptions {
  readonly clock: Clock;
  readonly ids: IdSource;
  /** The actions already journaled for this batch (a resume); default none. */
  readonly records?: readonly ActionRecord[];
  /**
   * The run's signal. Once it has aborted, no new attempt is leased: an action that would
   * take one fails for good instead (not dispatched, CANCELLED), and a leased attempt not yet
   * executing fails the same way, so a cancelled run never journals an `executing` that
   * will not run.
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * Asked for every attempt leased outside its action's admission (a retry, the next attempt
   * of a reconciled action, an attempt another process leased, a held call), just before it
   * is leased: what the policy in force now says (see `AttemptAuthorizer`). Default: none,
   * and every such attempt runs under the action's first authorization, as before.
   */
  readonly authorizeAttempt?: AttemptAuthorizer | undefined;
  /**
   * The fencing token of the run's lease this batch runs under: every reconciliation and
   * compensation is given it (`ReconcileContext`, `CompensationContext`), as every dispatch is.
   */
  readonly fencingToken?: number | undefined;
}
