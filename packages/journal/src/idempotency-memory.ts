import { YokeError, type IdempotencyClaim, type IdempotencyOutcome, type IdempotencyStoreV1 } from "@yoke/protocol";

interface MemoryRecord {
  argumentDigest: string;
  claimedAt: number;
  outcome: IdempotencyOutcome | undefined;
}

/**
 * Idempotency records in memory, for tests and single-process use. Claims are atomic
 * because each runs to completion on the event loop.
 *
 * @example
 * ```ts
 * const store = createMemoryIdempotencyStore();
 * await store.claim({ tenantId: "t", key: "action_1", argumentDigest: "d", now: 0, leaseMs: 1000 }); // { kind: "claimed", reclaimed: false }
 * ```
 */
export function createMemoryIdempotencyStore(): IdempotencyStoreV1 {
  const records = new Map<string, MemoryRecord>();
  let closed = false;
  const id = (tenantId: string, key: string) => JSON.stringify([tenantId, key]);
  const open = () => {
    if (closed) throw new YokeError("JOURNAL_CLOSED", "the idempotency store is closed");
  };
  return {
    specificationVersion: "v1",
    async claim({ tenantId, key, argumentDigest, now, leaseMs }): Promise<IdempotencyClaim> {
      open();
      const record = records.get(id(tenantId, key));
      if (record === undefined) {
        records.set(id(tenantId, key), { argumentDigest, claimedAt: now, outcome: undefined });
        return { kind: "claimed", reclaimed: false };
      }
      if (record.argumentDigest !== argumentDigest) return { kind: "mismatch", storedDigest: record.argumentDigest };
      if (record.outcome !== undefined) return { kind: "completed", outcome: record.outcome };
      if (record.claimedAt + leaseMs <= now) {
        record.claimedAt = now;
        return { kind: "claimed", reclaimed: true };
      }
      return { kind: "in_progress", claimedAt: record.claimedAt };
    },
    async complete({ tenantId, key, argumentDigest, outcome }): Promise<void> {
      open();
      const record = records.get(id(tenantId, key));
      if (record !== undefined && record.argumentDigest === argumentDigest && record.outcome === undefined) {
        record.outcome = structuredClone(outcome);
      }
    },
    async close() {
      closed = true;
    },
  };
}
