import type { Clock, RunLease, RunScope } from "@yoke/protocol";
import type { SqliteDatabaseLike, SqliteStatementLike } from "./sqlite-database.js";
import type { StoredLease } from "./lease-rules.js";

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

/**
 * The store's time a lease operation or an append's check judges expiry by: the test clock the
 * journal was given (`storeClock`), else the database's own time, read in the transaction.
 */
export function storeTime(table: LeaseStatements, storeClock: Clock | undefined): number {
  return storeClock === undefined ? table.databaseNow() : storeClock.now();
}
