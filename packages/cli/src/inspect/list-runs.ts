import { YokeError, type JournalEvent, type JournalV1 } from "@yoke/protocol";
import type { RunStatus, RunSummary } from "./run-view.js";
import { readRun } from "./read-run.js";

/** Which runs `listRuns` returns. */
export interface RunFilters {
  /** Only this tenant's runs. Required when the journal cannot list its tenants (a plain `JournalV1`). */
  readonly tenantId?: string;
  readonly status?: RunStatus;
  /** Only the outcome status (`verified_success`, `escalated`, …). */
  readonly outcome?: string;
  /** At most this many, the most recently active first. */
  readonly limit?: number;
}

/** A journal that can name its tenants (the CLI's stores can; `JournalV1` alone reads per tenant). */
export interface TenantListing {
  tenants(): Promise<readonly string[]>;
}

/** One run summarized from its events without the full run model: what a list needs. */
export function summarizeRun(events: readonly JournalEvent[], readError?: YokeError): RunSummary {
  const first = events[0];
  const last = events.at(-1);
  if (first === undefined || last === undefined || first.type !== "run.started") {
    throw new YokeError("RUN_NOT_FOUND", "the events hold no run.started");
  }
  const started = first.data as { task?: string; sessionId?: string; parent?: { runId?: string } };
  let turns = 0;
  let outcome: RunSummary["outcome"];
  let stop: "waiting" | "failed" | undefined;
  const pendingApprovals = new Set<string>();
  for (const event of events) {
    const data = event.data as { index?: number; outcome?: { status?: RunSummary["outcome"] }; approvalId?: string };
    switch (event.type) {
      case "turn.started":
        turns = data.index ?? turns + 1;
        stop = undefined;
        break;
      case "run.completed":
        outcome = data.outcome?.status;
        break;
      case "run.waiting":
        stop = "waiting";
        break;
      case "run.failed":
        stop = "failed";
        break;
      case "action.approval_requested":
        if (data.approvalId) pendingApprovals.add(data.approvalId);
        break;
      case "approval.granted":
      case "approval.denied":
      case "approval.voided":
        if (data.approvalId) pendingApprovals.delete(data.approvalId);
        break;
      default:
        if (!event.type.startsWith("budget.")) stop = undefined;
    }
  }
  const status: RunStatus = outcome !== undefined ? "finished" : stop === "waiting" || pendingApprovals.size > 0 ? "waiting" : (stop ?? "running");
  return {
    tenantId: first.tenantId,
    runId: first.runId,
    task: started.task ?? "",
    status,
    outcome,
    turns,
    events: events.length,
    startedAt: first.at,
    lastEventAt: last.at,
    parentRunId: started.parent?.runId,
    sessionId: started.sessionId ?? "",
    ...(readError === undefined ? {} : { readError: { code: readError.code, message: readError.message, atSeq: events.length } }),
  };
}

/**
 * Lists runs with their tenant, status and outcome, turns, start and last event, read from
 * the journal (every tenant the journal names, or `filters.tenantId`), the most recently
 * active first. A run whose chain breaks is still listed, with `readError`, from the events
 * before the break. Interrupt inboxes (`run.started.inboxOf`) and session streams
 * (`run.started.sessionOf`) are not runs and are left out.
 *
 * @example
 * ```ts
 * const journal = await openStore("yoke.sqlite");
 * const waiting = await listRuns(journal, { status: "waiting", limit: 20 });
 * ```
 */
export async function listRuns(journal: JournalV1 & Partial<TenantListing>, filters: RunFilters = {}): Promise<RunSummary[]> {
  const runs: RunSummary[] = [];
  for await (const { tenantId, runId, events, error } of readRuns(journal, filters.tenantId)) {
    if (events.length === 0) {
      runs.push(brokenAtStart(tenantId, runId, error));
      continue;
    }
    const summary = summarizeRun(events, error);
    if (filters.status !== undefined && summary.status !== filters.status) continue;
    if (filters.outcome !== undefined && summary.outcome !== filters.outcome) continue;
    runs.push(summary);
  }
  runs.sort((a, b) => b.lastEventAt - a.lastEventAt || a.runId.localeCompare(b.runId));
  return filters.limit === undefined ? runs : runs.slice(0, filters.limit);
}

/**
 * Every run of the journal (of `tenantId`, or of every tenant it names) with its events up to
 * the first broken link (`error`), in the journal's order. Interrupt inboxes and session
 * streams are not runs and are left out; a run broken at its first event has no events.
 */
export async function* readRuns(
  journal: JournalV1 & Partial<TenantListing>,
  tenantId: string | undefined,
): AsyncGenerator<{ tenantId: string; runId: string; events: JournalEvent[]; error: YokeError | undefined }> {
  let tenants: readonly string[];
  if (tenantId !== undefined) tenants = [tenantId];
  else if (typeof journal.tenants === "function") tenants = await journal.tenants();
  else throw new YokeError("CONFIG_INVALID", "this journal cannot list its tenants: pass a tenant", { details: { filter: "tenantId" } });
  for (const tenant of tenants) {
    const ids: string[] = [];
    for await (const run of journal.listRuns(tenant)) ids.push(run.runId);
    for (const runId of ids) {
      const { events, error } = await readRun(journal, { tenantId: tenant, runId });
      const header = events[0]?.data as { inboxOf?: string; sessionOf?: string } | undefined;
      if (header?.inboxOf !== undefined || header?.sessionOf !== undefined) continue;
      yield { tenantId: tenant, runId, events, error };
    }
  }
}

function brokenAtStart(tenantId: string, runId: string, error: YokeError | undefined): RunSummary {
  return {
    tenantId,
    runId,
    task: "",
    status: "running",
    outcome: undefined,
    turns: 0,
    events: 0,
    startedAt: 0,
    lastEventAt: 0,
    parentRunId: undefined,
    sessionId: "",
    ...(error === undefined ? {} : { readError: { code: error.code, message: error.message, atSeq: 0 } }),
  };
}
