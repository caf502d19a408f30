import type { JournalEvent, JournalHead, RunScope } from "@yoke/protocol";
import type { SealedEvent } from "./chain.js";
import { walkChain, type ChainStep } from "./chain-walk.js";
import type { StoredEvent } from "./journal-driver.js";
import type { JournalKeyRing } from "./keyed-chain.js";
import type { SqliteDatabaseLike, SqliteStatementLike } from "./sqlite-database.js";
import { toJournalError } from "./sqlite-errors.js";

export { READ_PAGE_SIZE, type ChainStep } from "./chain-walk.js";

interface EventRow {
  seq: unknown;
  type: unknown;
  at: unknown;
  causation_id: unknown;
  data: unknown;
  prev_hash: unknown;
  hash: unknown;
  schema_version: unknown;
}

/** Rows per INSERT statement: 10 parameters each, far below SQLite's parameter limit. */
const INSERT_CHUNK = 16;

/**
 * The hot-path statements, prepared once per journal. Every statement names the tenant and
 * seeks on the `(tenant_id, run_id, seq)` primary key.
 */
export class EventStatements {
  private readonly db: SqliteDatabaseLike;
  private readonly headStatement: SqliteStatementLike;
  private readonly insertStatements: (SqliteStatementLike | undefined)[] = [];
  private readonly hashAtStatement: SqliteStatementLike;
  private readonly firstFromStatement: SqliteStatementLike;
  private readonly pageStatement: SqliteStatementLike;

  constructor(db: SqliteDatabaseLike) {
    this.db = db;
    const scoped = "FROM events WHERE tenant_id = ? AND run_id = ?";
    this.headStatement = db.prepare(`SELECT seq, hash ${scoped} ORDER BY seq DESC LIMIT 1`);
    this.hashAtStatement = db.prepare(`SELECT hash ${scoped} AND seq = ?`);
    this.firstFromStatement = db.prepare(`SELECT seq ${scoped} AND seq >= ? ORDER BY seq LIMIT 1`);
    this.pageStatement = db.prepare(
      `SELECT seq, type, at, causation_id, data, prev_hash, hash, schema_version ${scoped} AND seq >= ? AND seq < ? ORDER BY seq LIMIT ?`,
    );
  }

  /** The run's head from the store itself (not a cache), so other writers are seen. */
  head(scope: RunScope): JournalHead | null {
    const row = this.headStatement.get(scope.tenantId, scope.runId) as { seq: number; hash: string } | undefined;
    return row === undefined ? null : { length: row.seq + 1, hash: row.hash };
  }

  /** The hash of the run's event at `seq`, or null when the run has no such event. */
  hashAt(scope: RunScope, seq: number): string | null {
    const row = this.query("read", () => this.hashAtStatement.get(scope.tenantId, scope.runId, seq)) as { hash: unknown } | undefined;
    return row === undefined ? null : String(row.hash);
  }

  /** Whether the run has an event at `seq` or later. */
  hasEventFrom(scope: RunScope, seq: number): boolean {
    return this.query("read", () => this.firstFromStatement.get(scope.tenantId, scope.runId, seq)) !== undefined;
  }

  /** Up to `limit` events of the run in `[fromSeq, toSeq)`, each decoded as it is taken. */
  readPage(scope: RunScope, fromSeq: number, toSeq: number, limit: number): Iterable<StoredEvent> {
    const rows = this.query("read", () => this.pageStatement.all(scope.tenantId, scope.runId, fromSeq, toSeq, limit)) as EventRow[];
    return decodeRows(scope, rows);
  }

  /** Every run's head, for adopting a journal into a new head witness. */
  allHeads(): { scope: RunScope; head: JournalHead }[] {
    const rows = this.query("read", () =>
      this.db
        .prepare(
          "SELECT e.tenant_id, e.run_id, e.seq, e.hash FROM events e JOIN " +
            "(SELECT tenant_id, run_id, MAX(seq) AS seq FROM events GROUP BY tenant_id, run_id) m " +
            "ON e.tenant_id = m.tenant_id AND e.run_id = m.run_id AND e.seq = m.seq",
        )
        .all(),
    ) as { tenant_id: string; run_id: string; seq: number; hash: string }[];
    return rows.map((row) => ({ scope: { tenantId: row.tenant_id, runId: row.run_id }, head: { length: row.seq + 1, hash: row.hash } }));
  }

  /**
   * Stores sealed events, in chunks of up to INSERT_CHUNK rows per statement: one multi-row
   * INSERT costs one bind-and-step instead of one per event (the statements are prepared once,
   * per chunk size, on first use).
   */
  insertAll(sealed: readonly SealedEvent[]): void {
    for (let from = 0; from < sealed.length; from += INSERT_CHUNK) {
      const count = Math.min(INSERT_CHUNK, sealed.length - from);
      // Preallocated; a growing array, filled the same way, ends with the same values.
      const values: unknown[] = new Array(count * 10);
      for (let index = 0; index < count; index++) {
        const { event, canonicalData } = sealed[from + index]!;
        const at = index * 10;
        values[at] = event.tenantId;
        values[at + 1] = event.runId;
        values[at + 2] = event.seq;
        values[at + 3] = event.type;
        values[at + 4] = event.at;
        values[at + 5] = event.causationId;
        values[at + 6] = canonicalData;
        values[at + 7] = event.prevHash;
        values[at + 8] = event.hash;
        values[at + 9] = event.schemaVersion;
      }
      this.insertStatement(count).run(...values);
    }
  }

  private insertStatement(rows: number): SqliteStatementLike {
    let statement = this.insertStatements[rows];
    // A cache only: preparing the statement on every insert would store the same rows, slower.
    if (statement === undefined) {
      statement = this.db.prepare(
        "INSERT INTO events (tenant_id, run_id, seq, type, at, causation_id, data, prev_hash, hash, schema_version) VALUES " +
          Array.from({ length: rows }, () => "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", "),
      );
      this.insertStatements[rows] = statement;
    }
    return statement;
  }

  /** The chain walk of the shared semantics (`walkChain`) over these statements. */
  walk(scope: RunScope, fromSeq: number, toSeq: number, beforePage: () => void, keys?: JournalKeyRing): Generator<ChainStep, void, unknown> {
    return walkChain(this, scope, fromSeq, toSeq, beforePage, keys);
  }

  private query<T>(operation: string, run: () => T): T {
    try {
      return run();
    } catch (error) {
      throw toJournalError(error, operation);
    }
  }
}

function* decodeRows(scope: RunScope, rows: readonly EventRow[]): Generator<StoredEvent, void, undefined> {
  for (const row of rows) yield rowToEvent(scope, row);
}

/** The row as an event (checked by the caller), or why its data cannot be parsed. */
function rowToEvent(scope: RunScope, row: EventRow): JournalEvent | string {
  let data: unknown;
  try {
    data = JSON.parse(String(row.data));
  } catch (error) {
    return `data is not valid JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  // Types are not trusted here: checkEvent validates the shape before anything is yielded.
  return {
    schemaVersion: row.schema_version,
    tenantId: scope.tenantId,
    runId: scope.runId,
    seq: row.seq,
    type: row.type,
    at: row.at,
    causationId: row.causation_id,
    data,
    prevHash: row.prev_hash,
    hash: row.hash,
  } as JournalEvent;
}
