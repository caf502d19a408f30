import { actionDigestOf } from "@yoke/policy";
import {
  YokeError,
  checkApprovalBinding,
  type ActionRecord,
  type ApprovalBinding,
  type ApprovalRecord,
  type RunState,
  type ToolCallPart,
  type AnyToolDeclaration,
  type YokeEventDraft,
} from "@yoke/protocol";
import type { BatchTransaction } from "@yoke/scheduler";
import { accessOfCall, factsOf, revisionOf, type Blockers } from "./policy-admission.js";
import type { RunContext } from "./run-context.js";
import type { Admission, TurnParticipant } from "./turn/participant.js";
import { validateCall } from "./validate-calls.js";
import { NO_POLICY_ENGINE, NO_POLICY_REVISION } from "./tool-approval.js";

type Declaration = AnyToolDeclaration;

/** The rule `action.authorized` names for an action a person approved (the approval id is journaled with it). */
export const APPROVED_RULE = "approval";

/** The tool revision a binding names when the registry no longer offers the pinned tool at all. */
const GONE = "gone";

/** What a person's decision journals, and the error the caller gets once it is journaled (if any). */
export interface ApprovalDecision {
  readonly draft: YokeEventDraft;
  readonly refusal?: YokeError;
}

/**
 * `approve` on a waiting request: `approval.granted` with a new expiry (`expiresAt`, else
 * now + the TTL) while `now` is before the request's own expiry; at or after it, nothing is
 * granted: the request is voided (`approval.voided` APPROVAL_EXPIRED, naming the approver and
 * both times) and the approver gets APPROVAL_EXPIRED. A late approval never buys a fresh
 * expiry: on resume the parked call fails, not run, and the model is told it may ask again.
 */
export function grantOrVoid(
  approval: ApprovalRecord,
  options: { readonly approver: string; readonly expiresAt?: number | undefined; readonly now: number; readonly ttlMs: number },
): ApprovalDecision {
  const { approvalId, actionId } = approval;
  const { approver, now } = options;
  const expiresAt = approval.requestExpiresAt;
  if (now < expiresAt) {
    const binding = { ...approval.binding, expiresAt: options.expiresAt ?? now + options.ttlMs };
    return { draft: { type: "approval.granted", at: now, causationId: actionId, data: { actionId, approvalId, approver, binding } } };
  }
  const reason = `${approver} approved at ${now}, after the request expired at ${expiresAt}; nothing was granted`;
  return {
    draft: { type: "approval.voided", at: now, causationId: actionId, data: { actionId, approvalId, code: "APPROVAL_EXPIRED", fields: ["expiresAt"], reason } },
    refusal: new YokeError(
      "APPROVAL_EXPIRED",
      `approval ${approvalId} expired at ${expiresAt}, before it was approved (at ${now}); the call will not run: ask again`,
      {
        details: { approvalId, actionId, expiresAt, now },
      },
    ),
  };
}

/** The latest approval of an action. */
export function approvalOf(state: RunState, actionId: string): ApprovalRecord | undefined {
  let found: ApprovalRecord | undefined;
  for (const approval of state.approvals.values()) if (approval.actionId === actionId) found = approval;
  return found;
}

/**
 * Approvals as a participant: a call parked for a person (`awaiting_approval`) is proposed
 * again each time its batch goes on, and this decides it (`settleParked`); a new call is
 * policy admission's to decide.
 */
export const approvals: TurnParticipant = {
  name: "approvals",
  admit: (context, proposed) =>
    proposed.parked === undefined ? undefined : settleParked(context, proposed.state, proposed.batch, proposed.parked, proposed.call, proposed.blockers),
};

/**
 * Brings a parked action (`awaiting_approval`) as far as it can go now, immediately before
 * dispatch (no drafts and no attempt: it still waits):
 * - requested, not decided: waits (a blocker for later conflicting calls) until its request
 *   expires (`binding.expiresAt`), then `approval.voided` APPROVAL_EXPIRED and `action.failed`;
 * - denied: `action.failed` APPROVAL_DENIED, not dispatched;
 * - granted: the binding is recomputed now (the tool revision as the registry resolves the
 *   run's pinned tool now, the policy engine's revision now, the tool's base revision for
 *   these arguments now, the run's tenant and principal) and checked against the granted one
 *   and the clock (`checkApprovalBinding`): still binding → `action.authorized { approvalId }`,
 *   lease and `executing`, one transaction before dispatch; else `approval.voided` and
 *   `action.failed` (APPROVAL_INVALID naming the changed fields, or APPROVAL_EXPIRED).
 * A cancelled run fails a parked action (CANCELLED) instead of waiting.
 */
async function settleParked(
  context: RunContext,
  state: RunState,
  batch: BatchTransaction,
  record: ActionRecord,
  call: ToolCallPart,
  blockers: Blockers,
): Promise<Admission> {
  const engine = context.deps.policy ?? (approvalOf(state, record.actionId)?.binding.policyRevision === NO_POLICY_REVISION ? NO_POLICY_ENGINE : undefined);
  if (engine === undefined) {
    throw new YokeError("CONFIG_INVALID", `action ${record.actionId} of this run waits for an approval; resume it with a harness that has a policy`, {
      details: { option: "policy", actionId: record.actionId },
    });
  }
  const now = context.deps.clock.now();
  const approval = approvalOf(state, record.actionId);
  const at = now;
  const refuse = (code: Parameters<BatchTransaction["refuse"]>[1], message: string, before: YokeEventDraft[] = []): Admission => {
    batch.refuse(record.actionId, code, message);
    context.logger.info({ actionId: record.actionId, toolName: record.toolName, code }, "parked action not dispatched");
    return { drafts: [...before, ...batch.drain()] };
  };
  if (context.signal?.aborted) return refuse("CANCELLED", "the run was cancelled while this call waited for approval; it did not run");
  if (approval === undefined) throw new YokeError("INTERNAL", `action ${record.actionId} is awaiting approval but no approval names it`);
  const { approvalId } = approval;
  const voided = (code: "APPROVAL_EXPIRED" | "APPROVAL_INVALID", fields: readonly string[], reason: string): YokeEventDraft => ({
    type: "approval.voided",
    at,
    causationId: record.actionId,
    data: { actionId: record.actionId, approvalId, code, fields: [...fields], reason },
  });
  switch (approval.status) {
    case "requested": {
      if (now < approval.binding.expiresAt) {
        const resolved = await resolveNow(context, state, record.toolName);
        const parsed = resolved.tool === undefined ? undefined : await validateCall(call, resolved.tool, resolved.digest);
        blockers.push(parsed?.kind === "start" ? accessOfCall(parsed.tool, parsed.value) : { reads: [], writes: ["*"] });
        return { drafts: [] };
      }
      const reason = `nobody decided on approval ${approvalId} before it expired at ${approval.binding.expiresAt}`;
      return refuse("APPROVAL_EXPIRED", `${reason}; the call to ${record.toolName} was not run`, [voided("APPROVAL_EXPIRED", ["expiresAt"], reason)]);
    }
    case "denied":
      return refuse(
        "APPROVAL_DENIED",
        `${approval.approver ?? "a person"} denied the call to ${record.toolName}${approval.reason ? `: ${approval.reason}` : ""}; it was not run`,
      );
    case "voided":
      return refuse(
        approval.code ?? "APPROVAL_INVALID",
        `approval ${approvalId} was voided (${approval.reason ?? "no reason"}); the call to ${record.toolName} was not run (ask again to have it approved)`,
      );
    case "granted": {
      // A grant journaled at or after the request's own expiry (by an older runtime, or forged) grants nothing.
      if (approval.decidedAt !== undefined && approval.decidedAt >= approval.requestExpiresAt) {
        const reason = `approval ${approvalId} was granted at ${approval.decidedAt}, after its request expired at ${approval.requestExpiresAt}`;
        return refuse("APPROVAL_EXPIRED", `${reason}; the call to ${record.toolName} was not run`, [voided("APPROVAL_EXPIRED", ["expiresAt"], reason)]);
      }
      const resolved = await resolveNow(context, state, record.toolName);
      const parsed = resolved.tool === undefined ? undefined : await validateCall(call, resolved.tool, resolved.digest);
      let resourceRevision: string | null = approval.binding.resourceRevision;
      if (parsed?.kind === "start") {
        const facts = factsOf(parsed.tool, parsed.value);
        resourceRevision = facts.ok ? (facts.facts.baseRevision ?? null) : `facts-failed: ${facts.reason}`;
      }
      const current: ApprovalBinding = {
        actionDigest: actionDigestOf(resolved.digest, record.input),
        toolRevision: resolved.digest,
        resourceRevision,
        policyRevision: engine.revision,
        tenantId: context.scope.tenantId,
        principalId: state.principal.id,
        expiresAt: approval.binding.expiresAt,
      };
      const check = checkApprovalBinding(approval.binding, current, now);
      if (check.ok && parsed?.kind === "start") {
        const item = batch.authorizeApproved(record.actionId, approvalId, { rule: APPROVED_RULE }, parsed.tool, parsed.value);
        context.logger.info({ actionId: record.actionId, toolName: record.toolName, approvalId }, "approved action authorized");
        return { drafts: batch.drain(), item };
      }
      const code = check.ok ? "APPROVAL_INVALID" : check.code;
      const fields = check.ok ? ["toolRevision"] : check.fields;
      const reason = check.ok ? `the approved revision of ${record.toolName} can no longer run these arguments` : check.reason;
      return refuse(code, `${reason}; the call to ${record.toolName} was not run (ask again to have it approved as it stands now)`, [
        voided(code, fields, reason),
      ]);
    }
  }
}

/**
 * The revision of a tool the run may call now: the registry's resolution of the revision the
 * run pins for it (its declaration when callable; the offered digest when it drifted; `gone`
 * when withdrawn, unavailable or no longer pinned). Never served from this process's cache:
 * an approval is checked against the registry as it is now.
 */
async function resolveNow(context: RunContext, state: RunState, toolName: string): Promise<{ digest: string; tool?: Declaration }> {
  const pinned = state.pinnedTools.get(toolName);
  const registry = context.deps.registry;
  if (pinned === undefined || registry === undefined) {
    const tool = context.deps.tools.get(toolName);
    return tool === undefined ? { digest: GONE } : { digest: revisionOfSpec(tool), tool };
  }
  try {
    const resolution = await registry.resolve(pinned);
    if (resolution.status === "callable") {
      context.revisions.set(resolution.revision.digest, resolution.revision.declaration);
      return { digest: resolution.revision.digest, tool: resolution.revision.declaration };
    }
    if (resolution.status === "drifted") return { digest: resolution.drift.offered ?? GONE };
    return { digest: GONE };
  } catch {
    return { digest: GONE };
  }
}

function revisionOfSpec(tool: Declaration): string {
  return revisionOf({ tool, revision: undefined });
}
