import type { JournalEvent, JournalV1, RunScope } from "@yoke/protocol";
import { findRun } from "../inspect/load-run.js";
import { inspectRun } from "../inspect/inspect-run.js";
import { listRuns, type TenantListing } from "../inspect/list-runs.js";
import { readRun } from "../inspect/read-run.js";
import type { RunSummary, RunView, TimelineEntry } from "../inspect/run-view.js";

/** Raw events per page at most: a page of the raw log stays small whatever the run's size. */
export const MAX_EVENTS_PAGE = 500;

/** One run as the page gets it: the run model without its per-event timeline (paged apart). */
export interface RunPayload {
  readonly tenantId: string;
  readonly runId: string;
  /** Events the run model was built from: all of them, or those before a broken chain's first bad one. */
  readonly inspected: number;
  readonly view: Omit<RunView, "timeline">;
}

/** A page of the raw log: the events from `from`, each with its one-line summary. */
export interface EventsPage {
  readonly from: number;
  /** How many events may be paged through (those before the first bad one when the chain breaks). */
  readonly total: number;
  readonly events: readonly (JournalEvent & { readonly summary: string | undefined })[];
}

/** What the viewer's JSON API answers, read from one journal. */
export interface ViewerData {
  runs(): Promise<readonly RunSummary[]>;
  run(scope: RunScope): Promise<RunPayload>;
  events(scope: RunScope, from: number, limit: number): Promise<EventsPage>;
  findRun(runId: string): Promise<RunScope>;
}

interface Loaded {
  readonly hash: string;
  readonly length: number;
  readonly events: readonly JournalEvent[];
  readonly timeline: readonly TimelineEntry[];
  readonly payload: RunPayload;
}

/**
 * The viewer's reads over a journal, through the CLI's run model (`inspectRun`, `listRuns`). A
 * run is read, verified and inspected once per head: reloading the page of a finished run costs
 * one `head()`. A run whose chain breaks is shown up to the first bad event, with the chain's
 * verdict in `view.chain`.
 */
export function createViewerData(journal: JournalV1 & Partial<TenantListing>): ViewerData {
  const cache = new Map<string, Loaded>();
  const key = (scope: RunScope) => `${scope.tenantId}\u0000${scope.runId}`;

  async function load(scope: RunScope): Promise<Loaded> {
    const head = await journal.head(scope);
    const cached = cache.get(key(scope));
    if (cached !== undefined && head !== null && cached.hash === head.hash && cached.length === head.length) return cached;
    const { events } = await readRun(journal, scope);
    const verification = await journal.verify(scope);
    const { timeline, ...view } = inspectRun(events, { verification });
    const loaded: Loaded = {
      hash: head?.hash ?? "",
      length: head?.length ?? events.length,
      events,
      timeline,
      payload: { tenantId: scope.tenantId, runId: scope.runId, inspected: events.length, view },
    };
    cache.set(key(scope), loaded);
    return loaded;
  }

  return {
    runs: () => listRuns(journal),
    run: async (scope) => (await load(scope)).payload,
    async events(scope, from, limit) {
      const { events, timeline } = await load(scope);
      const to = Math.min(events.length, from + Math.min(Math.max(limit, 1), MAX_EVENTS_PAGE));
      const page = events.slice(from, to).map((event, index) => ({ ...event, summary: timeline[from + index]?.summary }));
      return { from, total: events.length, events: page };
    },
    findRun: (runId) => findRun(journal, runId),
  };
}
