import {
  YokeError,
  systemClock,
  type AppendOptions,
  type AppendResult,
  type Clock,
  type EventDraft,
  type JournalEvent,
  type JournalHead,
  type JournalV1,
  type ReadOptions,
  type RunScope,
  type RunLeasesV1,
  type RunSummary,
  type VerifyResult,
} from "@yoke/protocol";
import { EMPTY_HEAD, chainError, checkEvent, checkEventAskingKeys, conflictError, sealDrafts } from "./chain.js";
import { checkEventSizes, maxEventBytesOf } from "./event-size.js";
import { ChainReport, keyRingOf, type JournalKeyOptions } from "./keyed-chain.js";
import { checkAppendLease, checkCurrent, checkLeaseRequest, checkTtl, nextLease, type StoredLease } from "./lease-rules.js";
import { sequenceOption } from "./read-range.js";

export interface MemoryJournalOptions extends JournalKeyOptions {
  /**
   * The store's clock: lease expiry is judged on it, for every caller of this journal alike
   * (the store is this one object in one process, so its clock is the one it was built with;
   * no caller brings its own). Default: the system clock.
   */
  readonly clock?: Clock;
  /** The largest event an append accepts (see `EventSizeOptions`). Default `DEFAULT_MAX_EVENT_BYTES` (8 MiB). */
  readonly maxEventBytes?: number;
}

/**
 * A journal in process memory: the reference implementation of `JournalV1` for tests.
 * Not durable (`capabilities.durable` is false). Events are stored frozen, as copies.
 *
 * @example
 * ```ts
 * const journal = createMemoryJournal();
 * await journal.append({ tenantId: "tenant_a", runId: "run_1" }, 0, [runStartedDraft]);
 * const keyed = createMemoryJournal({ keys }); // HMAC-sealed per tenant (see JournalKeyOptions)
 * ```
 */
export function createMemoryJournal(options: MemoryJournalOptions = {}): JournalV1 & { readonly leases: RunLeasesV1 } {
  const clock = options.clock ?? systemClock();
  const keys = keyRingOf(options);
  const maxEventBytes = maxEventBytesOf(options);
  const runs = new Map<string, JournalEvent[]>();
  const leaseTable = new Map<string, StoredLease>();
  // The store's one fencing-token counter: tokens grow across runs, so one backend can compare them.
  let lastToken = 0;
  let closed = false;
  // JSON keeps the pair unambiguous: a separator character could also occur inside an id.
  const key = (scope: RunScope) => JSON.stringify([scope.tenantId, scope.runId]);
  // The message is for people; callers and the contract go by the code (asserted after close for every method).
  const ensureOpen = () => {
    if (closed) throw new YokeError("JOURNAL_CLOSED", "the memory journal is closed");
  };

  const leases: RunLeasesV1 = {
    async acquire(scope, request) {
      ensureOpen();
      checkLeaseRequest(request);
      checkIds(scope);
      const lease = nextLease(scope, leaseTable.get(key(scope)) ?? null, request, clock.now(), lastToken);
      lastToken = lease.token;
      leaseTable.set(key(scope), { lease, released: false });
      return lease;
    },
    async renew(lease, ttlMs) {
      ensureOpen();
      checkTtl(ttlMs);
      checkCurrent(lease, leaseTable.get(key(lease)) ?? null);
      const renewed = { ...lease, expiresAt: clock.now() + ttlMs };
      leaseTable.set(key(lease), { lease: renewed, released: false });
      return renewed;
    },
    async release(lease) {
      ensureOpen();
      const current = leaseTable.get(key(lease));
      if (current !== undefined && !current.released && current.lease.token === lease.token) {
        leaseTable.set(key(lease), { lease: { ...current.lease, expiresAt: Math.min(current.lease.expiresAt, clock.now()) }, released: true });
      }
    },
    async current(scope) {
      ensureOpen();
      return leaseTable.get(key(scope))?.lease ?? null;
    },
  };

  return {
    specificationVersion: "v1",
    capabilities: { durable: false, multiProcess: false },
    leases,

    async append(scope, expectedSeq, drafts: readonly EventDraft[], options?: AppendOptions): Promise<AppendResult> {
      ensureOpen();
      checkIds(scope);
      const sealingKey = keys === undefined ? undefined : await keys.sealingKey(scope.tenantId);
      // Only an awaited key lets close() run in between (tested in keyed-chain.test.ts); without a
      // key nothing was awaited, so checking again unconditionally would change nothing.
      if (sealingKey !== undefined) ensureOpen();
      checkAppendLease(scope, leaseTable.get(key(scope)) ?? null, options, () => clock.now());
      const events = runs.get(key(scope)) ?? [];
      if (expectedSeq !== events.length) throw conflictError(scope, expectedSeq, events.length);
      const last = events.at(-1);
      const head: JournalHead = last ? { length: events.length, hash: last.hash } : EMPTY_HEAD;
      // Stored as a copy the caller cannot reach: the data parsed back from the canonical JSON the hash
      // was computed over (what a SQLite store hands back too; several times cheaper than structuredClone).
      const sealedDrafts = sealDrafts(scope, head, drafts, sealingKey);
      checkEventSizes(scope, sealedDrafts, maxEventBytes);
      const sealed = sealedDrafts.map(({ event, canonicalData }) => deepFreeze({ ...event, data: JSON.parse(canonicalData) }));
      // Registers a new run's array (setting a known run's own array again would change nothing).
      if (events.length === 0) runs.set(key(scope), events);
      events.push(...sealed);
      const tail = sealed.at(-1)!;
      return { lastSeq: tail.seq, headHash: tail.hash, events: sealed };
    },

    async *read(scope, options: ReadOptions = {}) {
      ensureOpen();
      const events = runs.get(key(scope)) ?? [];
      const from = sequenceOption(options.fromSeq, 0, "fromSeq");
      const to = Math.min(sequenceOption(options.toSeq, events.length, "toSeq"), events.length);
      for (let seq = from; seq < to; seq++) {
        const event = events[seq]!;
        const prevHash = seq === 0 ? EMPTY_HEAD.hash : events[seq - 1]!.hash;
        const failure = keys === undefined ? checkEvent(scope, seq, prevHash, event) : await checkEventAskingKeys(scope, seq, prevHash, event, keys);
        if (failure) throw chainError(scope, failure);
        yield event;
      }
    },

    async head(scope) {
      ensureOpen();
      const events = runs.get(key(scope));
      // A run's array is registered only with its first events, so it is never empty here: the
      // length test is a guard, not a case.
      if (!events || events.length === 0) return null;
      return { length: events.length, hash: events.at(-1)!.hash };
    },

    async verify(scope): Promise<VerifyResult> {
      ensureOpen();
      const events = runs.get(key(scope)) ?? [];
      const report = new ChainReport(keys !== undefined);
      let prevHash = EMPTY_HEAD.hash;
      for (let seq = 0; seq < events.length; seq++) {
        const failure =
          keys === undefined ? checkEvent(scope, seq, prevHash, events[seq]) : await checkEventAskingKeys(scope, seq, prevHash, events[seq], keys);
        if (failure) return failure;
        prevHash = events[seq]!.hash;
        report.note(prevHash);
      }
      return report.result(events.length, prevHash);
    },

    async *listRuns(tenantId): AsyncIterable<RunSummary> {
      ensureOpen();
      const summaries = [...runs.values()]
        .filter((events) => events[0]?.tenantId === tenantId)
        .map((events) => ({
          tenantId,
          runId: events[0]!.runId,
          length: events.length,
          firstAt: events[0]!.at,
          lastAt: events.at(-1)!.at,
        }))
        // One summary per run id of the tenant: ids are never equal here, so `<` and `<=` sort alike.
        .sort((a, b) => (a.runId < b.runId ? -1 : 1));
      yield* summaries;
    },

    async close() {
      closed = true;
    },
  };
}

/** A run's ids are strings (RunScope): another value is refused, as a SQLite journal refuses it, never kept as a run. */
function checkIds(scope: RunScope): void {
  if (typeof scope.tenantId !== "string" || typeof scope.runId !== "string") {
    throw new YokeError("JOURNAL_INVALID_APPEND", "tenantId and runId must be strings", { details: { runId: String(scope.runId) } });
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}
