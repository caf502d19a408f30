import type { RunLease, RunScope } from "@yoke/protocol";
import type { SqliteDatabaseLike, SqliteStatementLike } from "./sqlite-database.js";
import type { StoredLease } from "./lease-rules.js";

interface LeaseRow {
  owner_id: string;
  token: number;
  expires_at: number;
  released: number;
}

/**
 * The `run_leases` statements: one row per run that ever had a lease, keyed like the events.
 * Every call runs inside a caller's `BEGIN IMMEDIATE` transaction (an acquisition, a renewal,
 * or an append's check), so the read and the write of a lease see no other writer between them.
 */
export class LeaseStatements {
  private readonly getStatement: SqliteStatementLike;
  private readonly putStatement: SqliteStatementLike;

  constructor(db: SqliteDatabaseLike) {
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
}
