import { YokeError, type JournalEvent, type JournalV1, type RunScope } from "@yoke/protocol";

/** A run's events as far as they read, and the error that stopped the read (a broken chain), if any. */
export interface ReadRun {
  readonly events: JournalEvent[];
  readonly error: YokeError | undefined;
}

/**
 * Reads a run's events in order. The journal refuses to yield an edited or torn event
 * (JOURNAL_CHAIN_BROKEN, JOURNAL_CORRUPT, JOURNAL_TRUNCATED): the events before it are kept
 * and the error is returned beside them, so a tampered run can still be shown up to where
 * it breaks. Other errors are thrown; RUN_NOT_FOUND when the run has no events.
 *
 * @example
 * ```ts
 * const { events, error } = await readRun(journal, { tenantId: "acme", runId: "run_1" });
 * if (error) console.error(`read stopped at event ${events.length}: ${error.message}`);
 * ```
 */
export async function readRun(journal: JournalV1, scope: RunScope, onEvent?: (count: number) => void): Promise<ReadRun> {
  const events: JournalEvent[] = [];
  let error: YokeError | undefined;
  try {
    for await (const event of journal.read(scope)) {
      events.push(event);
      onEvent?.(events.length);
    }
  } catch (caught) {
    if (!YokeError.isInstance(caught) || !["JOURNAL_CHAIN_BROKEN", "JOURNAL_CORRUPT", "JOURNAL_TRUNCATED"].includes(caught.code)) throw caught;
    error = caught;
  }
  if (events.length === 0 && error === undefined) {
    throw new YokeError("RUN_NOT_FOUND", `no run ${scope.runId} for tenant ${scope.tenantId}`, { details: { ...scope } });
  }
  return { events, error };
}
