import { RunStateAccumulator, awaitingApprovals, type JournalV1, type RunLease, type RunScope } from "@yoke/protocol";

/**
 * Why a scan passes over a run, or `resumable` when a worker should try to resume it:
 * - `finished`: it has an outcome;
 * - `waiting`: it waits for a person (an approval, a refusal, a content filter, an escalation);
 * - `failed`: its last stop is a journaled `run.failed` (a non-retryable error: resume it by hand once the cause is fixed);
 * - `child`: a subagent's run, which its parent's resume drives;
 * - `never_owned`: it never had a lease (imported, or driven with leases turned off): nobody's owner is gone;
 * - `resumable`: unfinished, not waiting, and leased by an owner that may be gone. Whether it is
 *   gone is decided by taking the lease (its expiry is judged on the store's clock, and a live
 *   owner's lease is never taken), not by the scan.
 */
export type RunVerdict = "finished" | "waiting" | "failed" | "child" | "never_owned" | "resumable";

export interface ScannedRun extends RunScope {
  readonly verdict: RunVerdict;
  /** Events in the run when it was scanned. */
  readonly length: number;
  /** Its latest lease, when it had one. */
  readonly lease: RunLease | null;
}

/**
 * Remembers what a scan learnt so the next one reads only what changed: a run whose head did
 * not move keeps its verdict (a finished run never changes, a waiting one changes only by an append).
 */
export class RunScanCache {
  private readonly verdicts = new Map<string, { length: number; verdict: RunVerdict }>();

  get(scope: RunScope, length: number): RunVerdict | undefined {
    const known = this.verdicts.get(keyOf(scope));
    return known !== undefined && known.length === length && known.verdict !== "resumable" ? known.verdict : undefined;
  }

  set(scope: RunScope, length: number, verdict: RunVerdict): void {
    this.verdicts.set(keyOf(scope), { length, verdict });
  }
}

/** Every run of `tenants`, with its verdict. Reads the events only of runs whose head moved since `cache` saw them. */
export async function scanRuns(journal: JournalV1, tenants: readonly string[], cache: RunScanCache = new RunScanCache()): Promise<ScannedRun[]> {
  const leases = journal.leases;
  const scanned: ScannedRun[] = [];
  for (const tenantId of tenants) {
    for await (const summary of journal.listRuns(tenantId)) {
      const scope = { tenantId, runId: summary.runId };
      const lease = (await leases?.current(scope)) ?? null;
      const known = cache.get(scope, summary.length);
      const verdict = known ?? (lease === null ? "never_owned" : await verdictOf(journal, scope));
      cache.set(scope, summary.length, verdict);
      scanned.push({ ...scope, verdict, length: summary.length, lease });
    }
  }
  return scanned;
}

async function verdictOf(journal: JournalV1, scope: RunScope): Promise<RunVerdict> {
  const accumulator = new RunStateAccumulator();
  let failed = false;
  for await (const event of journal.read(scope)) {
    accumulator.apply(event);
    // A `run.failed` is the run's stop until anything but a budget settlement follows it.
    if (event.type === "run.failed") failed = true;
    else if (!event.type.startsWith("budget.")) failed = false;
  }
  const state = accumulator.peek();
  if (state.outcome !== undefined || state.phase === "finished") return "finished";
  if (state.parent !== undefined) return "child";
  if (state.waiting !== undefined || awaitingApprovals(state).length > 0) return "waiting";
  if (failed) return "failed";
  return "resumable";
}

function keyOf(scope: RunScope): string {
  return JSON.stringify([scope.tenantId, scope.runId]);
}
