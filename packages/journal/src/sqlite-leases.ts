import { YokeError, type Clock, type RunLease, type RunLeasesV1, type RunScope } from "@yoke/protocol";
import type { SqliteDatabaseLike, SqliteStatementLike } from "./sqlite-database.js";
import { checkCurrent, checkLeaseRequest, checkTtl, nextLease, type StoredLease } from "./lease-rules.js";
import { toJournalError } from "./sqlite-errors.js";

interface LeaseRow {
  owner_id: string;
  token: number;
  expires_at: number;
  released: number;
}

/**
 * The `run_leases` statements: one row per run that ever had a lease, keyed like the events,
 * with the file's one token counter (`lease_tokens`) and the database's own time. Every call
 * runs inside a caller's `BEGIN IMMEDIATE` transaction (an acquisition, a renewal, or an
 * append's check), so the read and the write of a lease see no other writer between them.
 */
export class LeaseStatements {
  private readonly getStatement: SqliteStatementLike;
  private readonly putStatement: SqliteStatementLike;
  private readonly lastTokenStatement: SqliteStatementLike;
  private readonly issueStatement: SqliteStatementLike;
  private readonly nowStatement: SqliteStatementLike;

  constructor(db: SqliteDatabaseLike) {
    this.lastTokenStatement = db.prepare("SELECT last_token FROM lease_tokens WHERE id = 1");
    this.issueStatement = db.prepare("INSERT INTO lease_tokens (id, last_token) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET last_token = excluded.last_token");
    // SQLite's clock (the host's real-time clock as the database reads it), to the millisecond:
    // one time for every process and harness on the file, whatever clock each was given.
    this.nowStatement = db.prepare("SELECT CAST(unixepoch('subsec') * 1000 AS INTEGER) AS now");
    this.getStatement = db.prepare("SELECT owner_id, token, expires_at, released FROM run_leases WHERE tenant_id = ? AND run_id = ?");
    this.putStatement = db.prepare(
      "INSERT INTO run_leases (tenant_id, run_id, owner_id, token, expires_at, released) VALUES (?, ?, ?, ?, ?, ?) " +
        "ON CONFLICT (tenant_id, run_id) DO UPDATE SET owner_id = excluded.owner_id, token = excluded.token, " +
        "expires_at = excluded.expires_at, released = excluded.released",
    );
  }

  get(scope: RunScope): StoredLease | null {
    const row = this.getStatement.get(scope.tenantId, scope.runId) as LeaseRow | undefined;
    if (row === undefined) return null;
    return {
      lease: { tenantId: scope.tenantId, runId: scope.runId, ownerId: row.owner_id, token: row.token, expiresAt: row.expires_at },
      released: row.released !== 0,
    };
  }

  put(lease: RunLease, released: boolean): void {
    this.putStatement.run(lease.tenantId, lease.runId, lease.ownerId, lease.token, lease.expiresAt, released ? 1 : 0);
  }

  /** The last fencing token the file handed out, for any run. */
  lastToken(): number {
    const row = this.lastTokenStatement.get() as { last_token: number } | undefined;
    return row?.last_token ?? 0;
  }

  /** Records `token` as the last one handed out (in the acquisition's transaction). */
  issue(token: number): void {
    this.issueStatement.run(token);
  }

  /** The database's time in ms since the epoch, read in the caller's transaction. */
  databaseNow(): number {
    return Number((this.nowStatement.get() as { now: number | bigint }).now);
  }
}

/** What the journal lends its leases: its open and read-only checks, and its scope check. */
export interface LeaseGuards {
  assertOpen(): void;
  /** The lease table, or JOURNAL_READ_ONLY / JOURNAL_CLOSED. */
  assertWritable(operation: string): LeaseStatements;
  storable(scope: RunScope): boolean;
}

/**
 * The store's time a lease operation or an append's check judges expiry by: the test clock the
 * journal was given (`storeClock`), else the database's own time, read in the transaction.
 */
export function storeTime(table: LeaseStatements, storeClock: Clock | undefined): number {
  return storeClock === undefined ? table.databaseNow() : storeClock.now();
}

/**
 * The SQLite journal's `RunLeasesV1`: each operation is one `BEGIN IMMEDIATE` transaction over
 * `run_leases`, applying the rules every store shares (`lease-rules.ts`) on the store's time.
 */
export function createSqliteRunLeases(
  db: SqliteDatabaseLike,
  table: LeaseStatements | undefined,
  storeClock: Clock | undefined,
  guards: LeaseGuards,
): RunLeasesV1 {
  const { assertOpen, assertWritable, storable } = guards;
  const leaseTransaction = db.transaction((operation: () => RunLease | null) => operation());

  const leases: RunLeasesV1 = {
    async acquire(scope, request) {
      const writable = assertWritable("acquire a lease");
      checkLeaseRequest(request);
      if (!storable(scope)) throw new YokeError("JOURNAL_INVALID_APPEND", "tenantId and runId must be well-formed Unicode strings");
      return runLeaseOperation(() => {
        const lease = nextLease(scope, writable.get(scope), request, storeTime(writable, storeClock), writable.lastToken());
        writable.issue(lease.token);
        writable.put(lease, false);
        return lease;
      }) as Promise<RunLease>;
    },
    async renew(lease, ttlMs) {
      const writable = assertWritable("renew a lease");
      checkTtl(ttlMs);
      return runLeaseOperation(() => {
        checkCurrent(lease, writable.get(lease));
        const renewed = { ...lease, expiresAt: storeTime(writable, storeClock) + ttlMs };
        writable.put(renewed, false);
        return renewed;
      }) as Promise<RunLease>;
    },
    async release(lease) {
      const writable = assertWritable("release a lease");
      await runLeaseOperation(() => {
        const current = writable.get(lease);
        // Releasing a released lease again would change nothing (its expiry is already no later
        // than now): `!current.released` saves the write. The memory store's release is the same.
        if (current !== null && !current.released && current.lease.token === lease.token) {
          writable.put({ ...current.lease, expiresAt: Math.min(current.lease.expiresAt, storeTime(writable, storeClock)) }, true);
        }
        return null;
      });
    },
    async current(scope) {
      assertOpen();
      // A read-only journal has no lease table (an older file's may not exist): nobody is known to hold the run.
      if (table === undefined || !storable(scope)) return null;
      try {
        return table.get(scope)?.lease ?? null;
      } catch (error) {
        // A driver failure of a plain read (not provoked by the tests: a WAL reader is never locked
        // out); its operation name is left unasserted (mutation testing: a survivor, justified).
        throw toJournalError(error, "read a lease");
      }
    },
  };
  async function runLeaseOperation(operation: () => RunLease | null): Promise<RunLease | null> {
    try {
      return leaseTransaction.immediate(operation) as RunLease | null;
    } catch (error) {
      throw toJournalError(error, "update a run lease");
    }
  }
  return leases;
}
