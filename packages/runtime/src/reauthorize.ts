import { YokeError, type ActionAuthority, type PolicyDecision } from "@yoke/protocol";
import type { AttemptAuthorization, AttemptAuthorizationRequest, AttemptAuthorizer } from "@yoke/scheduler";
import { APPROVED_RULE } from "./approvals.js";
import { decideCall } from "./policy-admission.js";
import type { RunContext } from "./run-context.js";

/**
 * The scheduler's `authorizeAttempt` for a run with a policy engine (none without one): every
 * attempt leased outside its action's admission — an in-process retry, the next attempt of a
 * reconciled action, an attempt a dead process leased, a held call — is decided on its whole
 * tuple under the engine's revision now. "The model already asked" is no authorization cache
 * (docs/decisions/0013).
 * - `allow` → the attempt runs; its lease carries the decision.
 * - `require_approval` for an action a person approved, under the revision the approval was
 *   asked under → it runs (rule `approval`): the approval covers the action's attempts.
 * - anything else → refused, not dispatched: POLICY_CHANGED, with the decision now and the one
 *   the action ran under before, both journaled on the attempt's `action.failed`.
 */
export function attemptAuthorizer(context: RunContext): AttemptAuthorizer | undefined {
  const engine = context.deps.policy;
  if (engine === undefined) return undefined;
  return async (request: AttemptAuthorizationRequest): Promise<AttemptAuthorization> => {
    const state = context.accumulator.peek();
    const record = state.actions.find((action) => action.actionId === request.actionId);
    if (record === undefined) throw new YokeError("INTERNAL", `attempt ${request.attempt} of unknown action ${request.actionId} was to be authorized`);
    const verdict = await decideCall(context, state, engine, {
      tool: request.tool,
      revision: record.toolRevision,
      input: record.input,
      value: request.value,
      toolCallId: record.toolCallId,
      // The action holds the count it was admitted with: a later attempt is decided on that standing, never charged again.
      ...(record.authority?.delegation === undefined ? {} : { delegation: record.authority.delegation }),
    });
    const { decision } = verdict;
    const previous = record.authority;
    const log = { actionId: record.actionId, toolName: record.toolName, attempt: request.attempt, effect: decision.effect, rule: decision.ruleId };
    if (decision.effect === "allow") return { kind: "allow", rule: decision.ruleId, policy: decision };
    if (decision.effect === "require_approval" && previous?.approvalId !== undefined && previous.policy?.policyRevision === decision.policyRevision) {
      return { kind: "allow", rule: APPROVED_RULE, policy: decision };
    }
    context.logger.warn({ ...log, previousRule: previous?.rule }, "policy refused a later attempt");
    return {
      kind: "refuse",
      code: "POLICY_CHANGED",
      message: changedMessage(record.toolName, request.attempt, decision, previous),
      policy: decision,
      ...(previous?.policy === undefined ? {} : { previousPolicy: previous.policy }),
    };
  };
}

/** What the model is told: the decision now, the one the action ran under, and what to do. */
function changedMessage(toolName: string, attempt: number, now: PolicyDecision, previous: ActionAuthority | undefined): string {
  const before =
    previous?.policy === undefined
      ? "it was authorized without a policy decision"
      : `it was authorized under policy revision ${short(previous.policy.policyRevision)} (rule ${previous.rule})`;
  const ask = now.effect === "require_approval" ? "; propose the call again to ask a person for approval" : "";
  return `the policy in force now (revision ${short(now.policyRevision)}, rule ${now.ruleId}) answers ${now.effect} for attempt ${attempt} of ${toolName}: ${now.reason}. ${before}; this attempt was not run${ask}.`;
}

function short(revision: string): string {
  return revision.slice(0, 12);
}
