// What an action may run under: the authorization journaled when it is admitted or authorized,
// and the decision asked again for every attempt leased after that (decision 0013).
import type { ArgumentProvenance, Carries, Clock, Influence, PolicyDecision, PolicyDelegation, AnyToolDeclaration, YokeErrorCode } from "@yoke/protocol";
import { errorEnvelope } from "./envelopes.js";

/**
 * Why an action may run: the rule that allowed it, and (with a policy engine) the decision, the
 * provenance of its arguments, the influence on the decision to make it and what it carries, journaled with
 * `action.admitted` / `action.authorized`.
 * Without one, the rule is `"default"` (allow by default, as before policy).
 */
export interface Authorization {
  readonly rule: string;
  readonly policy?: PolicyDecision;
  readonly provenance?: readonly ArgumentProvenance[];
  readonly influence?: Influence;
  readonly carries?: Carries;
  /** Where the call stood against the run's delegation (absent for a run without one). */
  readonly delegation?: PolicyDelegation;
}

/** Allow by default: what a batch without a policy engine journals. */
export const DEFAULT_AUTHORIZATION: Authorization = { rule: "default" };

/** What the scheduler asks before an attempt leased outside its action's admission may be dispatched. */
export interface AttemptAuthorizationRequest {
  readonly actionId: string;
  /** The attempt about to be dispatched: a retry (2 and on), or the first of a call authorized earlier and held. */
  readonly attempt: number;
  readonly tool: AnyToolDeclaration;
  /** The input as the tool's schema parsed it. */
  readonly value: unknown;
}

/**
 * The answer for one attempt. `allow`: it is leased (or, when another process leased it, made
 * executing) carrying `rule` and `policy`. `refuse`: it is leased and fails, not dispatched and
 * not retryable, with `code` and `message` for the model, and `policy` / `previousPolicy`
 * journaled on the failure so both decisions (and their revisions) are in the log.
 */
export type AttemptAuthorization =
  | { readonly kind: "allow"; readonly rule: string; readonly policy?: PolicyDecision }
  | {
      readonly kind: "refuse";
      readonly code: YokeErrorCode;
      readonly message: string;
      readonly policy?: PolicyDecision;
      readonly previousPolicy?: PolicyDecision;
    };

/**
 * Decides one attempt at the moment it would be dispatched. The runtime asks its policy engine
 * under the revision in force then; "the model already asked" is never an authorization cache.
 */
export type AttemptAuthorizer = (request: AttemptAuthorizationRequest) => AttemptAuthorization | Promise<AttemptAuthorization>;

/** The `rule` (and `policy`, `provenance`, `influence`, `carries` when decided by an engine) of an admission or authorization event. */
export function authorizationData(authorization: Authorization): {
  rule: string;
  policy?: PolicyDecision;
  provenance?: ArgumentProvenance[];
  influence?: Influence;
  carries?: Carries;
  delegation?: PolicyDelegation;
} {
  return {
    rule: authorization.rule,
    ...(authorization.policy === undefined ? {} : { policy: authorization.policy }),
    ...(authorization.provenance === undefined ? {} : { provenance: authorization.provenance.slice() }),
    ...(authorization.influence === undefined ? {} : { influence: authorization.influence }),
    ...(authorization.carries === undefined ? {} : { carries: authorization.carries }),
    ...(authorization.delegation === undefined ? {} : { delegation: authorization.delegation }),
  };
}

/** The `rule` and `policy` an attempt decided outside its admission carries on its lease (or executing). */
export function decidedData(decided: { readonly rule: string; readonly policy?: PolicyDecision } | undefined): { rule?: string; policy?: PolicyDecision } {
  if (decided === undefined) return {};
  return decided.policy === undefined ? { rule: decided.rule } : { rule: decided.rule, policy: decided.policy };
}

/** An attempt `authorizeAttempt` refused. */
export type Refusal = Extract<AttemptAuthorization, { kind: "refuse" }>;

/** The `action.failed` of a refused attempt: not dispatched, not retryable, with the refusal's code and both decisions. */
export function refusalData(actionId: string, attemptId: string, refusal: Refusal, clock: Clock) {
  const result = errorEnvelope(refusal.code, refusal.message, clock.now(), clock);
  return {
    actionId,
    attemptId,
    dispatched: false,
    retryable: false,
    retrying: false,
    result,
    ...(refusal.policy === undefined ? {} : { policy: refusal.policy }),
    ...(refusal.previousPolicy === undefined ? {} : { previousPolicy: refusal.previousPolicy }),
  };
}
