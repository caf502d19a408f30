import { SESSION_STREAM_SUFFIX, YokeError, canonicalJson, type JournalEvent, type JournalV1, type RunScope } from "@yoke/protocol";
import { inspectRun } from "../inspect/inspect-run.js";
import { listRuns, type TenantListing } from "../inspect/list-runs.js";
import { findRun } from "../inspect/load-run.js";
import { readRun } from "../inspect/read-run.js";
import type { ActionView, BudgetView, RunSummary, RunView, TimelineEntry, TurnView } from "../inspect/run-view.js";
import { MAX_RESPONSE_BYTES, fitJson, jsonBytes, sliceText } from "./bounded-json.js";

/** Raw events per page at most: a page of the raw log stays small whatever the run's size. */
export const MAX_EVENTS_PAGE = 500;
/** A page of turns ends after this many turns, or once it holds this many actions (at least one turn). */
export const MAX_TURNS_PAGE = 20;
export const MAX_ACTIONS_PAGE = 64;
/** What a page's items may take of a response: the rest is its envelope (from, next, total). */
const PAGE_BYTES = MAX_RESPONSE_BYTES - 1_024;
/** Runs whose events and run model stay in memory between requests. */
const CACHED_RUNS = 8;

/** One turn in the run's index: what the usage chart and the page's paging need, without its calls and actions. */
export interface TurnIndexEntry {
  readonly index: number;
  readonly seq: number;
  readonly at: number;
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly usage: TurnView["usage"];
  readonly cost: number | undefined;
  readonly currency: string | undefined;
  readonly modelCalls: number;
  readonly actions: number;
  readonly rejections: number;
  readonly inputs: number;
}

/**
 * One run as the page first gets it: the run model's header, usage, chain, budget totals and
 * run-level lists, with turns as an index. Turns in full (calls, manifests, responses, actions)
 * come a page at a time, and the per-event timeline with the raw events: a 10,000-event run
 * opens without shipping its whole model.
 */
export interface RunPayload {
  readonly tenantId: string;
  readonly runId: string;
  /** Events the run model was built from: all of them, or those before a broken chain's first bad one. */
  readonly inspected: number;
  /**
   * The run's session and its runs in order (from the session's stream; the run alone when the
   * session has none): the viewer links the run's siblings.
   */
  readonly session?: { readonly sessionId: string; readonly runs: readonly string[] };
  readonly view: Omit<RunView, "timeline" | "turns" | "actions" | "budget"> & {
    readonly turns: readonly TurnIndexEntry[];
    readonly actionCount: number;
    readonly budget: (Omit<BudgetView, "reservations"> & { readonly reservationCount: number }) | undefined;
  };
}

/** Turns `from` (a position in the run's turn list; 0 is the preamble) to `next`, in full, with their actions. */
export interface TurnsPage {
  readonly from: number;
  readonly next: number;
  readonly total: number;
  readonly turns: readonly TurnView[];
  readonly actions: readonly ActionView[];
}

/**
 * A page of the raw log: the events from `from` to `next`, each with its one-line summary. A
 * page ends after `limit` events or before its JSON would pass MAX_RESPONSE_BYTES (it always
 * holds one event). An event too large for a response alone comes with its data cut and `cut`
 * set: its whole canonical JSON is read in slices from `eventText`.
 */
export interface EventsPage {
  readonly from: number;
  /** Where the next page starts (`total` after the last). */
  readonly next: number;
  /** How many events may be paged through (those before the first bad one when the chain breaks). */
  readonly total: number;
  readonly events: readonly (JournalEvent & { readonly summary: string | undefined; readonly cut?: { readonly bytes: number } })[];
}

/** A slice of one event's canonical JSON (UTF-8 `offset` up to `next`), to read an event too large for one response. */
export interface EventTextSlice {
  readonly seq: number;
  readonly offset: number;
  /** Where the next slice starts; null after the last. */
  readonly next: number | null;
  /** The bytes of the event's whole canonical JSON. */
  readonly bytes: number;
  readonly text: string;
}

/** What the viewer's JSON API answers, read from one journal. */
export interface ViewerData {
  runs(): Promise<readonly RunSummary[]>;
  run(scope: RunScope): Promise<RunPayload>;
  turns(scope: RunScope, from: number): Promise<TurnsPage>;
  events(scope: RunScope, from: number, limit: number): Promise<EventsPage>;
  eventText(scope: RunScope, seq: number, offset: number): Promise<EventTextSlice>;
  findRun(runId: string): Promise<RunScope>;
}

interface Loaded {
  readonly hash: string;
  readonly length: number;
  readonly events: readonly JournalEvent[];
  readonly view: RunView;
  readonly actions: ReadonlyMap<string, ActionView>;
  readonly payload: RunPayload;
}

function indexEntry(turn: TurnView): TurnIndexEntry {
  return {
    index: turn.index,
    seq: turn.seq,
    at: turn.at,
    firstSeq: turn.firstSeq,
    lastSeq: turn.lastSeq,
    usage: turn.usage,
    cost: turn.cost,
    currency: turn.currency,
    modelCalls: turn.modelCalls.length,
    actions: turn.actionIds.length,
    rejections: turn.rejections.length,
    inputs: turn.inputs.length,
  };
}

function payloadOf(scope: RunScope, inspected: number, view: RunView): RunPayload {
  const { timeline: _timeline, turns, actions, budget, ...rest } = view;
  const budgetTotals = budget === undefined ? undefined : (({ reservations, ...totals }) => ({ ...totals, reservationCount: reservations.length }))(budget);
  return {
    tenantId: scope.tenantId,
    runId: scope.runId,
    inspected,
    view: { ...rest, turns: turns.map(indexEntry), actionCount: actions.length, budget: budgetTotals },
  };
}

/**
 * The viewer's reads over a journal, through the CLI's run model (`readRun`, `inspectRun`,
 * `listRuns`). A run is read, verified and inspected once per head: reloading the page of a
 * finished run costs one `head()`. A run whose chain breaks is shown up to the first bad event,
 * with the chain's verdict in `view.chain`.
 */
export function createViewerData(journal: JournalV1 & Partial<TenantListing>): ViewerData {
  const cache = new Map<string, Loaded>();
  const key = (scope: RunScope) => `${scope.tenantId}\u0000${scope.runId}`;
  let text: { readonly key: string; readonly bytes: Buffer } | undefined;

  async function load(scope: RunScope): Promise<Loaded> {
    const head = await journal.head(scope);
    const cached = cache.get(key(scope));
    if (cached !== undefined && head !== null && cached.hash === head.hash && cached.length === head.length) return cached;
    const { events } = await readRun(journal, scope);
    const verification = await journal.verify(scope);
    const view = inspectRun(events, { verification });
    const loaded: Loaded = {
      hash: head?.hash ?? "",
      length: head?.length ?? events.length,
      events,
      view,
      actions: new Map(view.actions.map((action) => [action.actionId, action])),
      payload: payloadOf(scope, events.length, view),
    };
    cache.delete(key(scope));
    cache.set(key(scope), loaded);
    // Keep the most recently loaded runs only: a viewer left open over a big journal stays small.
    for (const oldest of cache.keys()) {
      if (cache.size <= CACHED_RUNS) break;
      cache.delete(oldest);
    }
    return loaded;
  }

  return {
    runs: () => listRuns(journal),
    async run(scope) {
      const { payload } = await load(scope);
      // Read on every request, not cached with the run: a later send to the session adds a sibling.
      const sessionId = payload.view.header.sessionId;
      if (sessionId === "" || payload.view.header.inboxOf !== undefined) return payload;
      return { ...payload, session: { sessionId, runs: await sessionRuns(journal, scope.tenantId, sessionId, scope.runId) } };
    },
    async turns(scope, from) {
      const { view, actions } = await load(scope);
      const turns: TurnView[] = [];
      let actionCount = 0;
      let next = from;
      let bytes = 0;
      while (next < view.turns.length && turns.length < MAX_TURNS_PAGE) {
        const turn = view.turns[next]!;
        if (turns.length > 0 && actionCount + turn.actionIds.length > MAX_ACTIONS_PAGE) break;
        // A turn too large for a response alone is sent alone (the server cuts its long values).
        const size = jsonBytes(turn) + turn.actionIds.reduce((sum, id) => sum + jsonBytes(actions.get(id)) + 1, 1);
        if (turns.length > 0 && bytes + size > PAGE_BYTES) break;
        turns.push(turn);
        actionCount += turn.actionIds.length;
        bytes += size;
        next++;
      }
      const pageActions = turns.flatMap((turn) => turn.actionIds.map((id) => actions.get(id)).filter((action): action is ActionView => action !== undefined));
      return { from, next, total: view.turns.length, turns, actions: pageActions };
    },
    async events(scope, from, limit) {
      const { events, view } = await load(scope);
      const timeline: readonly TimelineEntry[] = view.timeline;
      const to = Math.min(events.length, from + Math.min(Math.max(limit, 1), MAX_EVENTS_PAGE));
      const page: EventsPage["events"][number][] = [];
      let bytes = 0;
      for (let seq = from; seq < to; seq++) {
        const entry = { ...events[seq]!, summary: timeline[seq]?.summary };
        const size = jsonBytes(entry) + 1;
        if (page.length > 0 && bytes + size > PAGE_BYTES) break;
        page.push(size > PAGE_BYTES ? cutEvent(entry) : entry);
        bytes += size;
      }
      return { from, next: Math.min(events.length, from + page.length), total: events.length, events: page };
    },
    async eventText(scope, seq, offset) {
      const { events, hash } = await load(scope);
      const event = events[seq];
      if (event === undefined) throw new YokeError("RUN_NOT_FOUND", `run ${scope.runId} has no event ${seq} to show`, { details: { seq } });
      // One event's text is kept between slices: reading a large event costs one serialization.
      if (text?.key !== `${key(scope)}\u0000${hash}\u0000${seq}`)
        text = { key: `${key(scope)}\u0000${hash}\u0000${seq}`, bytes: Buffer.from(canonicalJson(event), "utf8") };
      if (offset > text.bytes.length)
        throw new YokeError("CONFIG_INVALID", `offset ${offset} is past the event's ${text.bytes.length} bytes`, { details: { offset } });
      const slice = sliceText(text.bytes, offset);
      return { seq, offset, next: slice.next, bytes: text.bytes.length, text: slice.text };
    },
    findRun: (runId) => findRun(journal, runId),
  };
}

/** A session's runs in the order its stream records them (each once, where it started; one recorded but never started left out), or just `runId` when it has no stream. */
async function sessionRuns(journal: JournalV1, tenantId: string, sessionId: string, runId: string): Promise<string[]> {
  const recorded: string[] = [];
  for await (const event of journal.read({ tenantId, runId: `${sessionId}${SESSION_STREAM_SUFFIX}` })) {
    if (event.type === "session.appended") recorded.push((event.data as { runId: string }).runId);
  }
  const runs: string[] = [];
  for (const [index, id] of recorded.entries()) {
    if (recorded.lastIndexOf(id) === index && (await journal.head({ tenantId, runId: id })) !== null) runs.push(id);
  }
  return runs.length === 0 ? [runId] : runs;
}

/** An event too large for a response alone: its data cut to fit, and the size of its whole text. */
function cutEvent(entry: JournalEvent & { readonly summary: string | undefined }): EventsPage["events"][number] {
  const { summary: _summary, ...event } = entry;
  const bytes = Buffer.byteLength(canonicalJson(event), "utf8");
  const room = PAGE_BYTES - jsonBytes({ ...entry, data: null, cut: { bytes } });
  const data = fitJson(entry.data, room).value;
  return { ...entry, data: (data ?? {}) as JournalEvent["data"], cut: { bytes } };
}
