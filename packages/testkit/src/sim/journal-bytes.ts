import { canonicalJson, type JournalEvent, type JournalV1 } from "@yoke/protocol";

/** Every stream of a tenant (runs, interrupt inboxes), by run id, as read back from a journal. */
export type TenantEvents = ReadonlyMap<string, readonly JournalEvent[]>;

export async function readTenant(journal: JournalV1, tenantId: string): Promise<TenantEvents> {
  const ids: string[] = [];
  for await (const run of journal.listRuns(tenantId)) ids.push(run.runId);
  const streams = new Map<string, JournalEvent[]>();
  for (const runId of ids.sort()) {
    const events: JournalEvent[] = [];
    for await (const event of journal.read({ tenantId, runId })) events.push(event);
    streams.set(runId, events);
  }
  return streams;
}

/** Where two readings of a journal first differ: the stream, the seq, and each side's canonical JSON (null: absent). */
export interface JournalDifference {
  readonly runId: string;
  readonly seq: number;
  readonly first: string | null;
  readonly second: string | null;
}

/**
 * Compares two readings byte for byte (canonical JSON of every event, hashes included):
 * undefined when identical, else the first difference (streams in run-id order, events in
 * seq order).
 */
export function firstDifference(first: TenantEvents, second: TenantEvents): JournalDifference | undefined {
  const runIds = [...new Set([...first.keys(), ...second.keys()])].sort();
  for (const runId of runIds) {
    const left = first.get(runId) ?? [];
    const right = second.get(runId) ?? [];
    for (let index = 0; index < Math.max(left.length, right.length); index++) {
      const a = left[index] === undefined ? null : canonicalJson(left[index]);
      const b = right[index] === undefined ? null : canonicalJson(right[index]);
      if (a !== b) return { runId, seq: left[index]?.seq ?? right[index]?.seq ?? index, first: a, second: b };
    }
  }
  return undefined;
}
