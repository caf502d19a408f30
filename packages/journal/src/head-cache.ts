import type { JournalHead, RunScope } from "@yoke/protocol";

/**
 * The heads of the runs this journal appended to recently, so an append needs no head
 * query. An entry is a hint, never trusted alone: it is used only when it agrees with the
 * caller's expected sequence number, and the insert that follows runs in the driver's write
 * transaction, which stores at most one event per seq (SQLite: the `(tenant_id, run_id, seq)`
 * primary key). Events are only ever added, so if another writer has stored that sequence number the insert fails and the
 * append is a conflict; if it has not, the entry was exact.
 */
export class HeadCache {
  private readonly heads = new Map<string, JournalHead>();
  private readonly capacity: number;

  constructor(capacity = 4096) {
    this.capacity = capacity;
  }

  get(scope: RunScope): JournalHead | undefined {
    return this.heads.get(keyOf(scope));
  }

  set(scope: RunScope, head: JournalHead): void {
    const key = keyOf(scope);
    this.heads.delete(key);
    this.heads.set(key, head);
    if (this.heads.size > this.capacity) {
      const oldest = this.heads.keys().next();
      if (!oldest.done) this.heads.delete(oldest.value);
    }
  }

  forget(scope: RunScope): void {
    this.heads.delete(keyOf(scope));
  }
}

// Length-prefixed, so no pair of ids can produce another pair's key.
function keyOf(scope: RunScope): string {
  return `${scope.tenantId.length}:${scope.tenantId}${scope.runId}`;
}
