import { SESSION_STREAM_SUFFIX, type JournalEvent } from "@yoke/protocol";
import type { RecordedRun } from "./recorded-run.js";

/**
 * What the journal held before the recorded run began, that the run read: the earlier runs of
 * its session as it pinned them (`run.started.continues`: each run's first `length` events),
 * and its session's stream up to where the run was recorded in it. Replay puts these in the
 * replay journal before it starts the run; they are the world, not the run: the earlier runs
 * are read and never replayed, the session stream is replayed from the run's own entry on.
 */
export interface WorldBefore {
  /** Streams by run id, each the recorded events that existed before the run. */
  readonly streams: ReadonlyMap<string, readonly JournalEvent[]>;
  /** The earlier runs of the session (read by the run, never appended to by it). */
  readonly given: ReadonlySet<string>;
  /** Whether the run was started in its session (its stream records it): it is started with its `sessionId` again. */
  readonly joinsSession: boolean;
}

export function worldBefore(recorded: RecordedRun): WorldBefore {
  const { runId } = recorded.scope;
  const started = recorded.streams.get(runId)![0]!.data as { sessionId?: string; continues?: { runId: string; length: number }[] };
  const streams = new Map<string, readonly JournalEvent[]>();
  const given = new Set<string>();
  for (const pin of started.continues ?? []) {
    const events = recorded.streams.get(pin.runId);
    // A pinned run the journal lacks or has cut short is left out: the run's own check of its pins names it.
    if (events === undefined || events.length < pin.length) continue;
    streams.set(pin.runId, events.slice(0, pin.length));
    given.add(pin.runId);
  }
  const session = started.sessionId === undefined ? [] : (recorded.streams.get(`${started.sessionId}${SESSION_STREAM_SUFFIX}`) ?? []);
  const entry = session.findIndex((event) => event.type === "session.appended" && (event.data as { runId: string }).runId === runId);
  // At 1 the run created the stream (its `run.started`, then the run's entry): the run writes it all again.
  if (entry > 1) streams.set(session[0]!.runId, session.slice(0, entry));
  return { streams, given, joinsSession: entry >= 0 };
}
