import { YokeError, type RunLease, type RunLeasesV1 } from "@yoke/protocol";
import { drive, isThenable, settle, type Steps } from "./awaitable.js";
import type { JournalDriver, JournalDriverTransaction } from "./journal-driver.js";
import { checkCurrent, checkLeaseRequest, checkTtl, nextLease } from "./lease-rules.js";
import { storable } from "./scope-text.js";

/** What the journal lends its leases: its open and read-only checks. */
export interface LeaseGuards {
  assertOpen(): void;
  /** JOURNAL_CLOSED or JOURNAL_READ_ONLY unless the journal may write. */
  assertWritable(operation: string): void;
}

/**
 * The journal's `RunLeasesV1`: each change is one driver write transaction over the run's
 * lease row and the store's token counter, applying the rules every store shares
 * (`lease-rules.ts`) on the store's time.
 */
export function createJournalLeases(driver: JournalDriver, guards: LeaseGuards): RunLeasesV1 {
  const { assertOpen, assertWritable } = guards;
  const run = async <T extends RunLease | null>(steps: (tx: JournalDriverTransaction) => Steps<T>): Promise<T> => {
    try {
      const outcome = driver.write((tx) => drive(steps(tx)));
      return isThenable(outcome) ? await outcome : outcome;
    } catch (error) {
      throw driver.toJournalError(error, "update a run lease");
    }
  };

  return {
    async acquire(scope, request) {
      assertWritable("acquire a lease");
      checkLeaseRequest(request);
      if (!storable(scope)) throw new YokeError("JOURNAL_INVALID_APPEND", "tenantId and runId must be well-formed Unicode strings");
      return run(function* (tx) {
        const current = yield* settle(tx.lease(scope));
        const now = yield* settle(tx.now());
        const lease = nextLease(scope, current, request, now, yield* settle(tx.lastToken()));
        yield* settle(tx.issueToken(lease.token));
        yield* settle(tx.putLease(lease, false));
        return lease;
      });
    },
    async renew(lease, ttlMs) {
      assertWritable("renew a lease");
      checkTtl(ttlMs);
      return run(function* (tx) {
        checkCurrent(lease, yield* settle(tx.lease(lease)));
        const renewed = { ...lease, expiresAt: (yield* settle(tx.now())) + ttlMs };
        yield* settle(tx.putLease(renewed, false));
        return renewed;
      });
    },
    async release(lease) {
      assertWritable("release a lease");
      await run(function* (tx) {
        const current = yield* settle(tx.lease(lease));
        // Releasing a released lease again would change nothing (its expiry is already no later
        // than now): `!current.released` saves the write. The memory store's release is the same.
        if (current !== null && !current.released && current.lease.token === lease.token) {
          const now = yield* settle(tx.now());
          yield* settle(tx.putLease({ ...current.lease, expiresAt: Math.min(current.lease.expiresAt, now) }, true));
        }
        return null;
      });
    },
    async current(scope) {
      assertOpen();
      if (!storable(scope)) return null;
      try {
        const stored = driver.currentLease(scope);
        return (isThenable(stored) ? await stored : stored)?.lease ?? null;
      } catch (error) {
        // A driver failure of a plain read (not provoked by the tests: a WAL reader is never locked
        // out); the operation name is for people, like every other here.
        throw driver.toJournalError(error, "read a lease");
      }
    },
  };
}
