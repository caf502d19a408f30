import type { IdKind, IdSource, JournalEvent } from "@yoke/protocol";

// Any `<word>_<body>` string: a word that is no id kind is never asked for.
const ID_BODY = /^([a-z]+)_([0-9A-Za-z_-]{1,64})$/;

/**
 * The recorded ids, per kind, in the order they were minted: every id of the record, sorted
 * (the sequential and ULID sources mint bodies in lexicographic order, and first appearance
 * is not mint order: a turn's id is drawn before the ids its events mention first). `skip`:
 * ids replay passes in instead of drawing (the run's own id); `before`: what the journal held
 * before the run (its session's earlier runs): their ids were minted then, never by the run.
 * Past the record: `replay_<n>`.
 */
export function recordedIds(
  streams: Iterable<readonly JournalEvent[]>,
  skip: ReadonlySet<string>,
  before: Iterable<readonly JournalEvent[]> = [],
): RecordedIds {
  const pools = new Map<IdKind, Set<string>>();
  const minted = new Set(skip);
  const visit = (value: unknown, found: (id: string, kind: IdKind, body: string) => void): void => {
    if (typeof value === "string") {
      const match = ID_BODY.exec(value);
      if (match !== null) found(value, match[1] as IdKind, match[2]!);
    } else if (Array.isArray(value)) for (const item of value) visit(item, found);
    else if (value !== null && typeof value === "object") for (const item of Object.values(value)) visit(item, found);
  };
  for (const events of before) for (const event of events) visit([event.causationId, event.data], (id) => minted.add(id));
  for (const events of streams) {
    for (const event of events) {
      visit([event.causationId, event.data], (id, kind, body) => {
        if (minted.has(id)) return;
        if (!pools.has(kind)) pools.set(kind, new Set());
        pools.get(kind)!.add(body);
      });
    }
  }
  const queues = new Map([...pools.entries()].map(([kind, bodies]) => [kind, [...bodies].sort()]));
  let extra = 0;
  // Ids drawn since the last append: a process that stops before journaling them never drew
  // them in the record, so they go back to the front of their queues for its successor.
  let drawn: { kind: IdKind; body: string }[] = [];
  return {
    specificationVersion: "v1",
    next(kind) {
      const body = queues.get(kind)?.shift();
      if (body !== undefined) {
        drawn.push({ kind, body });
        return body;
      }
      extra += 1;
      return `replay${String(extra).padStart(8, "0")}`;
    },
    settle() {
      drawn = [];
    },
    giveBack() {
      for (const { kind, body } of drawn.reverse()) queues.get(kind)!.unshift(body);
      drawn = [];
    },
  };
}

/** The recorded ids, with what a stopped process drew handed back (`giveBack`) unless an append kept them (`settle`). */
export interface RecordedIds extends IdSource {
  settle(): void;
  giveBack(): void;
}
