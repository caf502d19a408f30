import { createHash } from "node:crypto";
import { actionDigestOf } from "@yoke/policy";
import {
  YokeError,
  canonicalJson,
  type ApprovalBinding,
  type ArgumentProvenance,
  type Carries,
  type Influence,
  type JsonValue,
  PolicyDecisionSchema,
  type PolicyDecision,
  type PolicyDelegation,
  type PolicyEngineV1,
  type PolicyTuple,
  type RunState,
  type ToolAccess,
  type ToolCallPart,
  type AnyToolDeclaration,
  type ToolPolicyFacts,
  type YokeEventDraft,
} from "@yoke/protocol";
import { conflicts, defaultAccess, type Authorization, type BatchTransaction, type DispatchItem } from "@yoke/scheduler";
import { carriesOf } from "./carries.js";
import { influenceOf, itemsOfProposal } from "./influence.js";
import { delegationStanding, takeGrant } from "./delegation.js";
import { contextItemsOf, traceArguments, type ContextItem } from "./provenance.js";
import type { RunContext } from "./run-context.js";
import { errorEnvelope } from "./tool-executor.js";
import { withRevision } from "./tool-admission.js";
import { NO_POLICY_ENGINE, stricterDecision, toolAsks } from "./tool-approval.js";

const ALL_RESOURCES = "*";

type Declaration = AnyToolDeclaration;

/** A call the validator accepted, as policy sees it. */
export interface CallForPolicy {
  readonly tool: Declaration;
  /** The digest of the tool revision the call runs (the registry's); undefined in a run that pinned no tools. */
  readonly revision: string | undefined;
  /** The input as journaled. */
  readonly input: JsonValue;
  /** The input as the tool's schema parsed it. */
  readonly value: unknown;
  /** The model's id of the call: its influence is that of the context it was proposed in (without it, the whole run's). */
  readonly toolCallId?: string;
  /** The batch the call is decided in: its calls decided before this one took their grants' counts. */
  readonly batch?: BatchTransaction;
  /** The standing an admitted action holds (a later attempt of it): its count is already spent. */
  readonly delegation?: PolicyDelegation;
}

/** The policy's verdict on one call, with what it was decided on. */
export interface PolicyVerdict {
  readonly decision: PolicyDecision;
  readonly provenance: ArgumentProvenance[];
  readonly influence: Influence;
  /** What the call carries; undefined when its tool declares no payloads. */
  readonly carries: Carries | undefined;
  /** Where the call stands against the run's delegation (absent for a run without one). */
  readonly delegation?: PolicyDelegation;
  readonly tuple: PolicyTuple | undefined;
  /** The binding an approval of this call is made for (`expiresAt` from `approvalTtlMs`). */
  readonly binding: ApprovalBinding;
}

/** The rule a facts function failure is journaled under (the call is refused: a tool that cannot say what a call means is not run). */
export const FACTS_FAILED_RULE = "tool-policy-facts-failed";

/** The tool revision digest a decision names: the registry's, or the digest of the tool's spec in a run that pinned no tools. */
export function revisionOf(call: Pick<CallForPolicy, "tool" | "revision">): string {
  return call.revision ?? createHash("sha256").update(canonicalJson(call.tool.spec)).digest("hex");
}

/** The tool's policy facts for one call; a facts function that throws is reported, never swallowed into an allow. */
export function factsOf(tool: Declaration, value: unknown): { ok: true; facts: ToolPolicyFacts } | { ok: false; reason: string } {
  if (tool.policy === undefined) return { ok: true, facts: {} };
  try {
    return { ok: true, facts: tool.policy(value) ?? {} };
  } catch (error) {
    return { ok: false, reason: `the policy facts of ${tool.name} could not be computed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * Decides one call with the harness's policy engine: builds the whole tuple (tenant,
 * principal, delegated scopes, tool name + revision + owner, the tool's policy facts with
 * their defaults, data classification, side effect, arguments digest, argument provenance,
 * influence, what it carries) and asks `engine.decide`. The binding an approval would need is computed with it.
 */
export async function decideCall(context: RunContext, state: RunState, engine: PolicyEngineV1, call: CallForPolicy): Promise<PolicyVerdict> {
  const { tool, input, value } = call;
  const revision = revisionOf(call);
  const items = await contextItemsFor(context, state);
  const found = factsOf(tool, value);
  const facts = found.ok ? found.facts : {};
  const provenance = traceArguments(input, facts, items);
  const influence = influenceOf(itemsOfProposal(items, proposalIndex(state, call.toolCallId)));
  const carries = carriesOf(provenance, facts, items);
  const binding: ApprovalBinding = {
    actionDigest: actionDigestOf(revision, input),
    toolRevision: revision,
    resourceRevision: facts.baseRevision ?? null,
    policyRevision: engine.revision,
    tenantId: context.scope.tenantId,
    principalId: state.principal.id,
    expiresAt: context.deps.clock.now() + context.deps.approvalTtlMs,
  };
  if (!found.ok) {
    return {
      decision: { effect: "deny", ruleId: FACTS_FAILED_RULE, policyRevision: engine.revision, reason: found.reason },
      provenance,
      influence,
      carries,
      tuple: undefined,
      binding,
    };
  }
  const verb = facts.verb ?? tool.name;
  const resource = facts.resource ?? `tool:${tool.name}`;
  const delegation = call.delegation ?? delegationStanding(state, { toolName: tool.name, verb, resource }, call.batch);
  const tuple: PolicyTuple = {
    tenantId: context.scope.tenantId,
    principal: { id: state.principal.id, authenticated: state.principal.authenticated },
    task: { runId: context.scope.runId, scopes: [...state.principal.scopes] },
    tool: { name: tool.name, revision, owner: tool.owner ?? null },
    verb,
    resource,
    ...(facts.path === undefined ? {} : { path: facts.path }),
    dataClassification: tool.dataClassification ?? "internal",
    ...(facts.destination === undefined ? {} : { destination: facts.destination }),
    ...(facts.baseRevision === undefined ? {} : { baseRevision: facts.baseRevision }),
    sideEffect: tool.sideEffect,
    ...(facts.expectedEffect === undefined ? {} : { expectedEffect: facts.expectedEffect }),
    argumentsDigest: createHash("sha256").update(canonicalJson(input)).digest("hex"),
    provenance,
    influence,
    ...(carries === undefined ? {} : { carries }),
    ...(delegation === undefined ? {} : { delegation }),
  };
  const decision = engine.decide(tuple);
  if (decision?.effect !== "allow" && decision?.effect !== "deny" && decision?.effect !== "require_approval") {
    throw new YokeError("POLICY_INVALID", `the policy engine returned no decision for ${tool.name}`, { details: { toolName: tool.name } });
  }
  // A copy with exactly the decision's fields: what the journal stores. Checked before it is
  // journaled: a decision the run's own reader would refuse (a revision that is not a digest, an
  // empty rule id) must fail here, typed, not leave an event nobody can read back.
  const journaled: PolicyDecision = { effect: decision.effect, ruleId: decision.ruleId, policyRevision: decision.policyRevision, reason: decision.reason };
  const checked = PolicyDecisionSchema.safeParse(journaled);
  if (!checked.success) {
    const issues = checked.error.issues.map((issue) => ({ path: issue.path.map(String), code: issue.code, message: issue.message }));
    const first = issues[0]!;
    throw new YokeError("POLICY_INVALID", `the policy engine's decision for ${tool.name} is malformed: ${first.path.join(".")}: ${first.message}`, {
      details: { toolName: tool.name, issues },
    });
  }
  return {
    decision: journaled,
    provenance,
    influence,
    carries,
    ...(delegation === undefined ? {} : { delegation }),
    tuple,
    binding: { ...binding, policyRevision: decision.policyRevision },
  };
}

/**
 * The index of the assistant message that proposed a call, if the run holds it: the last one
 * with that id (ids are the model's and may repeat; a later message only adds context, so a
 * reused id can never borrow the smaller context of an earlier proposal).
 */
function proposalIndex(state: RunState, toolCallId: string | undefined): number | undefined {
  if (toolCallId === undefined) return undefined;
  const index = state.messages.findLastIndex(
    (message) => message.role === "assistant" && message.content.some((part) => part.type === "tool-call" && part.toolCallId === toolCallId),
  );
  return index < 0 ? undefined : index;
}

/** The context items of the state a batch is decided on, built once per context and state length. */
const itemCache = new WeakMap<RunContext, { readonly length: number; readonly state: RunState; readonly items: ContextItem[] }>();

async function contextItemsFor(context: RunContext, state: RunState): Promise<ContextItem[]> {
  const cached = itemCache.get(context);
  if (cached !== undefined && cached.length === state.length && cached.state === state) return cached.items;
  const declarationOfResult = await declarationsOfResults(context, state);
  const items = contextItemsOf(
    state,
    (name) => declarationOfResult(name)?.trustedOutputFields,
    context.deps.context.constraints ?? [],
    (name) => declarationOfResult(name)?.dataClassification,
  );
  itemCache.set(context, { length: state.length, state, items });
  return items;
}

/** What `action.admitted` / `action.authorized` journal for an allowed call. */
export function authorizationOf(verdict: Pick<PolicyVerdict, "decision" | "provenance" | "influence" | "carries" | "delegation">): Authorization {
  return {
    rule: verdict.decision.ruleId,
    policy: verdict.decision,
    provenance: verdict.provenance,
    influence: verdict.influence,
    ...(verdict.carries === undefined ? {} : { carries: verdict.carries }),
    ...(verdict.delegation === undefined ? {} : { delegation: verdict.delegation }),
  };
}

/** The message the model is shown for a denied call: the rule and the reason, never more. */
export function deniedMessage(toolName: string, decision: PolicyDecision): string {
  return `the policy denied this call to ${toolName} (rule ${decision.ruleId}): ${decision.reason}. It was not run.`;
}

/**
 * The declaration of every tool whose results the run holds, by name (for its
 * `trustedOutputFields` and `dataClassification`): the declaration of the revision the run pins
 * for it (resolved through the registry when this process has not yet), else the harness's
 * tool of that name.
 */
async function declarationsOfResults(context: RunContext, state: RunState): Promise<(toolName: string) => Declaration | undefined> {
  const names = new Set<string>();
  for (const message of state.messages) if (message.role === "tool") for (const part of message.content) names.add(part.toolName);
  const declarations = new Map<string, Declaration | undefined>();
  for (const name of names) declarations.set(name, await declarationOf(context, state, name));
  return (name) => declarations.get(name);
}

async function declarationOf(context: RunContext, state: RunState, name: string): Promise<Declaration | undefined> {
  const pinned = state.pinnedTools.get(name);
  if (pinned === undefined) return context.deps.tools.get(name);
  const known = context.revisions.get(pinned.digest);
  if (known !== undefined) return known;
  const local = context.deps.tools.get(name);
  if (local !== undefined) return local;
  try {
    const resolution = await context.deps.registry?.resolve(pinned);
    return resolution?.status === "callable" ? resolution.revision.declaration : undefined;
  } catch {
    return undefined;
  }
}

/** Calls parked for approval or held behind one, by access set: a later call that conflicts with one of them waits too. */
export type Blockers = ToolAccess[];

/** The access set of a call, as the scheduler orders it (a throwing `access` conflicts with everything). */
export function accessOfCall(tool: Declaration, value: unknown): ToolAccess {
  try {
    return tool.access ? tool.access(value) : defaultAccess(tool.sideEffect);
  } catch {
    return { reads: [], writes: [ALL_RESOURCES] };
  }
}

/** Whether a call must wait for an earlier parked (or held) call of its batch. */
export function isBlocked(blockers: Blockers, access: ToolAccess): boolean {
  return blockers.some((blocker) => conflicts(blocker, access));
}

/**
 * Admits one accepted call. Without a policy engine, and a tool that asks no person
 * (`needsApproval`): `action.admitted`, rule `default`, as before policy. Else (a run without
 * an engine decides with one that allows all, then the tool's ask, the stricter winning): the call is decided on its whole tuple; `allow` → `action.admitted`
 * with the decision and the provenance (rule = the matching rule); `deny` → `tool.rejected`
 * POLICY_DENIED with the decision and the provenance (the model sees a tool error naming the
 * rule and the reason; the run goes on); `require_approval` → `action.approval_requested`
 * with the binding, and the call waits for a person. A call that conflicts with an earlier
 * parked (or held) call of the batch is authorized but not leased: it runs once that one settles.
 */
export async function admitCall(
  context: RunContext,
  state: RunState,
  batch: BatchTransaction,
  turnId: string,
  call: ToolCallPart,
  accepted: CallForPolicy,
  blockers: Blockers,
): Promise<{ drafts: YokeEventDraft[]; item?: DispatchItem }> {
  const proposed = { turnId, toolCallId: call.toolCallId, tool: accepted.tool, input: accepted.input, value: accepted.value };
  const engine = context.deps.policy;
  const ask = toolAsks(accepted.tool, accepted.value);
  if (engine === undefined && ask.kind === "no") {
    const access = accessOfCall(accepted.tool, accepted.value);
    // Behind a call a tool's needsApproval parked: authorized, run once that one settles.
    if (isBlocked(blockers, access)) {
      batch.hold(proposed, { rule: "default" });
      blockers.push(access);
      return { drafts: withRevision(batch.drain(), accepted.revision) };
    }
    const item = batch.admit(proposed);
    return { drafts: withRevision(batch.drain(), accepted.revision), item };
  }
  const decided = await decideCall(context, state, engine ?? NO_POLICY_ENGINE, { ...accepted, toolCallId: call.toolCallId, batch });
  const verdict = { ...decided, decision: stricterDecision(decided.decision, ask) };
  const { decision } = verdict;
  context.logger.info({ turnId, toolName: call.toolName, effect: decision.effect, rule: decision.ruleId }, "policy decided");
  const access = accessOfCall(accepted.tool, accepted.value);
  switch (decision.effect) {
    case "deny": {
      const at = context.deps.clock.now();
      const result = errorEnvelope("POLICY_DENIED", deniedMessage(call.toolName, decision), at, context.deps.clock);
      const data = {
        turnId,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        code: "POLICY_DENIED",
        result,
        policy: decision,
        provenance: verdict.provenance,
        influence: verdict.influence,
        ...(verdict.carries === undefined ? {} : { carries: verdict.carries }),
        ...(verdict.delegation === undefined ? {} : { delegation: verdict.delegation }),
      };
      return { drafts: [{ type: "tool.rejected", at, causationId: turnId, data }] };
    }
    case "require_approval": {
      batch.park(proposed, {
        policy: decision,
        provenance: verdict.provenance,
        influence: verdict.influence,
        ...(verdict.carries === undefined ? {} : { carries: verdict.carries }),
        ...(verdict.delegation === undefined ? {} : { delegation: verdict.delegation }),
        binding: verdict.binding,
      });
      takeGrant(batch, verdict.delegation);
      blockers.push(access);
      return { drafts: withRevision(batch.drain(), accepted.revision) };
    }
    case "allow": {
      takeGrant(batch, verdict.delegation);
      if (isBlocked(blockers, access)) {
        batch.hold(proposed, authorizationOf(verdict));
        blockers.push(access);
        return { drafts: withRevision(batch.drain(), accepted.revision) };
      }
      const item = batch.admit(proposed, authorizationOf(verdict));
      return { drafts: withRevision(batch.drain(), accepted.revision), item };
    }
  }
}
