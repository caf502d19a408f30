import type { Delegation, DelegationGrant, PolicyDelegation, RunState } from "@yoke/protocol";
import type { BatchTransaction } from "@yoke/scheduler";

/*
 * Where a proposed call stands against the run's delegation (the tuple's `delegation`): the
 * grants `run.delegated` pinned, the counts the fold says are spent, and the calls of the
 * batch being decided that took a count before this one (they are journaled together, after
 * every decision of the batch, so the fold does not hold them yet).
 */

/** What a grant is matched on: the tool's name and the policy facts of the call. */
export interface DelegatedCall {
  readonly toolName: string;
  readonly verb: string;
  readonly resource: string;
}

const takenInBatch = new WeakMap<BatchTransaction, Map<string, number>>();

/**
 * The call's standing: the first grant that covers it with a count left (`within`), else the
 * first grant that covers it, spent (`within: false`, its counts), else no grant (`used` and
 * `max` 0). Undefined for a run without a delegation.
 */
export function delegationStanding(state: RunState, call: DelegatedCall, batch: BatchTransaction | undefined): PolicyDelegation | undefined {
  const pinned = state.delegation;
  if (pinned === undefined) return undefined;
  const taken = batch === undefined ? undefined : takenInBatch.get(batch);
  let spent: PolicyDelegation | undefined;
  for (const grant of pinned.delegation.grants) {
    if (!covers(grant, call)) continue;
    const used = (pinned.used[grant.grantId] ?? 0) + (taken?.get(grant.grantId) ?? 0);
    if (used < grant.max) return { within: true, grantId: grant.grantId, used, max: grant.max };
    spent ??= { within: false, grantId: grant.grantId, used, max: grant.max };
  }
  return spent ?? { within: false, used: 0, max: 0 };
}

/** Notes that a call of `batch` took a count of its grant (admitted, held or parked within it), for the batch's later decisions. */
export function takeGrant(batch: BatchTransaction, standing: PolicyDelegation | undefined): void {
  if (standing?.within !== true || standing.grantId === undefined) return;
  const taken = takenInBatch.get(batch) ?? new Map<string, number>();
  taken.set(standing.grantId, (taken.get(standing.grantId) ?? 0) + 1);
  takenInBatch.set(batch, taken);
}

function covers(grant: DelegationGrant, call: DelegatedCall): boolean {
  return (
    grant.tools.some((pattern) => globMatches(pattern, call.toolName)) &&
    (grant.resources === undefined || grant.resources.some((pattern) => globMatches(pattern, call.resource))) &&
    (grant.verbs === undefined || grant.verbs.some((pattern) => globMatches(pattern, call.verb)))
  );
}

/** A glob over a whole value: `*` matches any run of characters (none included); everything else matches itself. */
export function globMatches(pattern: string, value: string): boolean {
  const parts = pattern.split("*");
  if (parts.length === 1) return pattern === value;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (value.length < first.length + last.length || !value.startsWith(first) || !value.endsWith(last)) return false;
  let at = first.length;
  const end = value.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = value.indexOf(middle, at);
    if (found < 0 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}

/**
 * The delegation a child run starts with: its parent's grants with only the counts the parent
 * has left when it spawns the child (grants with none left are dropped), so a child can never
 * do more than its parent still may. Undefined when the parent has no delegation.
 */
export function remainingDelegation(parent: RunState): Delegation | undefined {
  const pinned = parent.delegation;
  if (pinned === undefined) return undefined;
  const grants = pinned.delegation.grants.flatMap((grant) => {
    const left = grant.max - (pinned.used[grant.grantId] ?? 0);
    return left > 0 ? [{ ...grant, max: left }] : [];
  });
  return { source: pinned.delegation.source, grants };
}
