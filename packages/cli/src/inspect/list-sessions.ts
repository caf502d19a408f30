import type { JournalV1 } from "@yoke/protocol";
import { listRuns, type TenantListing } from "./list-runs.js";
import type { RunSummary } from "./run-view.js";

/** One session: its runs in the order they started, and when it was first and last active. */
export interface SessionSummary {
  readonly tenantId: string;
  readonly sessionId: string;
  /** The session's runs, oldest first. */
  readonly runs: readonly RunSummary[];
  readonly firstAt: number;
  readonly lastAt: number;
  /** The last run's status (`finished`, `running`, `waiting`, `failed`). */
  readonly lastStatus: RunSummary["status"];
  /** The last run's outcome, when it ended. */
  readonly lastOutcome: RunSummary["outcome"];
}

/**
 * The journal's sessions (every tenant it names, or `tenantId`), the most recently active
 * first: top-level runs grouped by `run.started.sessionId` (a run started without a session is
 * a session of one; a subagent's run belongs to its parent, not to a session of its own).
 *
 * @example
 * ```ts
 * const sessions = await listSessions(journal, { tenantId: "acme" });
 * for (const session of sessions) console.log(session.sessionId, session.runs.length, session.lastOutcome);
 * ```
 */
export async function listSessions(
  journal: JournalV1 & Partial<TenantListing>,
  filters: { tenantId?: string; sessionId?: string } = {},
): Promise<SessionSummary[]> {
  const runs = await listRuns(journal, filters.tenantId === undefined ? {} : { tenantId: filters.tenantId });
  const groups = new Map<string, RunSummary[]>();
  for (const run of runs) {
    if (run.parentRunId !== undefined || run.sessionId === "") continue;
    if (filters.sessionId !== undefined && run.sessionId !== filters.sessionId) continue;
    const key = JSON.stringify([run.tenantId, run.sessionId]);
    const group = groups.get(key) ?? [];
    group.push(run);
    groups.set(key, group);
  }
  const sessions = [...groups.values()].map((group): SessionSummary => {
    const ordered = group.slice().sort((a, b) => a.startedAt - b.startedAt || a.runId.localeCompare(b.runId));
    const last = ordered.at(-1)!;
    return {
      tenantId: last.tenantId,
      sessionId: last.sessionId,
      runs: ordered,
      firstAt: ordered[0]!.startedAt,
      lastAt: Math.max(...ordered.map((run) => run.lastEventAt)),
      lastStatus: last.status,
      lastOutcome: last.outcome,
    };
  });
  return sessions.sort((a, b) => b.lastAt - a.lastAt || a.sessionId.localeCompare(b.sessionId));
}
