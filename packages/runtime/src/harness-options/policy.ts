import type { PolicyEngineV1 } from "@yoke/protocol";
import type { CapabilityOptions } from "../capabilities.js";
import type { DelegationPlanner } from "../delegation-types.js";

/**
 * Who decides what a run may do, and for whom: the policy every proposed call is decided by,
 * the principal runs act for, how long an approval holds, and the broker that mints each
 * dispatched attempt a short-lived capability. One of the groups `HarnessOptions` is composed
 * of.
 *
 * @example
 * ```ts
 * const governance: HarnessPolicyOptions = {
 *   policy: createPolicyEngine(rules),
 *   principal: { id: "user_42", scopes: ["payments"] },
 *   approvalTtlMs: 15 * 60_000,
 *   capabilities: { broker: createCapabilityBroker({ key, clock, ids }) },
 * };
 * const harness = createHarness({ ...governance, provider, tools });
 * ```
 */
export interface HarnessPolicyOptions {
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
   * A planning step that proposes each new run's delegation (what the task may do, and how
   * many times): called once, before the first model call, with only the user's task and the
   * tool declarations (names, descriptions, input schemas, side effects, data classification,
   * declared trusted fields), never a tool's output. Its grants are journaled in
   * `run.delegated` (source `"planner"`) and pinned for the run's life; the policy then sees
   * every call's standing (`tuple.delegation`). A start's own `delegation` wins over it; a
   * child run never plans (it gets its parent's remaining grants). Default: none.
   *
   * @example
   * ```ts
   * createHarness({ provider, tools, policy, planDelegation: ({ task }) => (/pay/i.test(task) ? { grants: [{ grantId: "pay", tools: ["send_money"], max: 1 }] } : undefined) });
   * ```
   */
  planDelegation?: DelegationPlanner;
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
   * A capability broker (`createCapabilityBroker` from `@yoke/policy/capabilities`): each
   * dispatched attempt gets `context.capability`, scoped to the run's tenant, the resource and
   * verb of the tool's `policy` facts for its input (`tool:<name>` and the tool's name by
   * default), the action and an expiry `ttlMs` after dispatch (default the tool's timeout, on
   * the injected clock); it is revoked when the attempt settles. The token is cut out of
   * whatever the handler returns: a result carries the backend's receipt, never the credential.
   * Default: none (`context.capability` is undefined).
   *
   * @experimental How a capability reaches a tool (today `context.capability`) may change
   * once tools run in a sandbox that is handed its credentials.
   */
  capabilities?: CapabilityOptions;
}

/**
 * Who a run acts for: an id, whether the caller authenticated it (default true) and the scopes
 * delegated to the run.
 *
 * @example
 * ```ts
 * createHarness({ provider, policy, principal: { id: "user_42", scopes: ["payments"] } });
 * ```
 */
export interface PrincipalOption {
  readonly id: string;
  readonly authenticated?: boolean;
  /**
   * What the run's task is delegated, as scope names the policy's rules match.
   *
   * @experimental May give way to a run's delegation (which verbs on which resources, and how
   * many), pinned like the policy revision.
   */
  readonly scopes?: readonly string[];
}
