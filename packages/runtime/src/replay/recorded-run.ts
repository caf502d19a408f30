import { RunStateAccumulator, SESSION_STREAM_SUFFIX, YokeError, type JournalEvent, type JournalV1, type RunScope } from "@yoke/protocol";
import { INTERRUPT_INBOX_SUFFIX } from "../interrupts.js";

/** A recorded run and the streams beside it that replay needs, each read whole, verified and folded. */
export interface RecordedRun {
  readonly scope: RunScope;
  /** Every related stream by run id: the run, its interrupt inbox, its subagents (at any depth), the session runs it continues, its session's stream. */
  readonly streams: ReadonlyMap<string, readonly JournalEvent[]>;
}

/**
 * Reads the run of `scope` and its related streams from `journal`. Each stream's chain must
 * verify (a tampered event is JOURNAL_CHAIN_BROKEN, re-hashed or not: a re-hashed stream no
 * longer matches what a head witness or a later stream pinned), and each event must parse
 * and fold: a newer schema version is JOURNAL_SCHEMA_UNSUPPORTED, an unknown type or bad data
 * EVENT_INVALID, a fold that throws REPLAY_UNSUPPORTED, each naming the event.
 */
export async function readRecordedRun(journal: JournalV1, scope: RunScope): Promise<RecordedRun> {
  const root = await readStream(journal, scope);
  if (root.length === 0) throw new YokeError("RUN_NOT_FOUND", `run ${scope.runId} is not in the journal`, { details: { ...scope } });
  const streams = new Map<string, readonly JournalEvent[]>([[scope.runId, root]]);
  const runIds: string[] = [];
  for await (const run of journal.listRuns(scope.tenantId)) runIds.push(run.runId);
  const started = new Map<string, JournalEvent>();
  for (const runId of runIds) {
    if (runId === scope.runId) continue;
    const first = await firstEvent(journal, { tenantId: scope.tenantId, runId });
    if (first !== undefined) started.set(runId, first);
  }
  const rootData = root[0]!.data as { continues?: { runId: string }[]; sessionId?: string };
  const continues = new Set((rootData.continues ?? []).map((entry) => entry.runId));
  const session = rootData.sessionId === undefined ? undefined : `${rootData.sessionId}${SESSION_STREAM_SUFFIX}`;
  const related = (runId: string): boolean => {
    if (runId === `${scope.runId}${INTERRUPT_INBOX_SUFFIX}` || continues.has(runId) || runId === session) return true;
    for (let parent = parentOf(started.get(runId)); parent !== undefined; parent = parentOf(started.get(parent))) {
      if (parent === scope.runId) return true;
    }
    return false;
  };
  for (const runId of [...started.keys()].sort()) {
    if (!related(runId)) continue;
    const events = await readStream(journal, { tenantId: scope.tenantId, runId });
    streams.set(runId, events);
  }
  // A subagent's inbox belongs with it.
  for (const runId of [...started.keys()].sort()) {
    const owner = runId.endsWith(INTERRUPT_INBOX_SUFFIX) ? runId.slice(0, -INTERRUPT_INBOX_SUFFIX.length) : undefined;
    if (owner !== undefined && owner !== scope.runId && streams.has(owner)) streams.set(runId, await readStream(journal, { tenantId: scope.tenantId, runId }));
  }
  return { scope, streams };
}

function parentOf(started: JournalEvent | undefined): string | undefined {
  return (started?.data as { parent?: { runId?: string } } | undefined)?.parent?.runId;
}

async function firstEvent(journal: JournalV1, scope: RunScope): Promise<JournalEvent | undefined> {
  for await (const event of journal.read(scope, { toSeq: 1 })) return event;
  return undefined;
}

async function readStream(journal: JournalV1, scope: RunScope): Promise<JournalEvent[]> {
  const verified = await journal.verify(scope);
  if (!verified.ok) {
    throw new YokeError(
      "JOURNAL_CHAIN_BROKEN",
      `run ${scope.runId}: the recorded chain does not verify at event ${verified.firstBadSeq} (${verified.reason})`,
      {
        details: { ...scope, seq: verified.firstBadSeq, reason: verified.reason },
      },
    );
  }
  const events: JournalEvent[] = [];
  for await (const event of journal.read(scope)) events.push(event);
  const fold = new RunStateAccumulator();
  for (const event of events) {
    try {
      fold.apply(event);
    } catch (error) {
      if (YokeError.isInstance(error) && (error.code === "JOURNAL_SCHEMA_UNSUPPORTED" || error.code === "EVENT_INVALID")) throw error;
      throw new YokeError("REPLAY_UNSUPPORTED", `run ${scope.runId}: event ${event.seq} (${event.type}) does not fold: ${messageOf(error)}`, {
        details: { runId: scope.runId, seq: event.seq, type: event.type, reason: "fold_failed" },
        cause: error,
      });
    }
  }
  return events;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
