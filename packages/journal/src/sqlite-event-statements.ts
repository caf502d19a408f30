import { GENESIS_HASH, type JournalEvent, type JournalHead, type RunScope, type VerifyResult } from "@yoke/protocol";
import { checkEvent, missingKeyId, type SealedEvent } from "./chain.js";
import type { JournalKeyRing } from "./keyed-chain.js";
import type { SqliteDatabaseLike, SqliteStatementLike } from "./sqlite-database.js";
import { toJournalError } from "./sqlite-errors.js";

type ChainFailure = Extract<VerifyResult, { ok: false }>;

/**
 * One step of a chain walk: a verified event, or the first failure (nothing follows it), or
 * (keyed journals only) a key the provider is being asked for: await `pending`, then go on.
 */
export type ChainStep =
  | { readonly event: JournalEvent; readonly failure?: undefined; readonly pending?: undefined }
  | { readonly failure: ChainFailure; readonly pending?: undefined }
  | { readonly pending: Promise<unknown>; readonly failure?: undefined };

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

/** Rows per page: a long run is read in bounded memory, and no statement stays open between pages. */
export const READ_PAGE_SIZE = 256;

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

  /**
   * The run's event at `seq` checked on its own: its shape, scope and seq, and (with `keys`)
   * its MAC, against its own stored predecessor hash. Null when it verifies; a failure whose
   * `missingKeyId` is set means the ring does not hold the key the event names yet.
   */
  checkAt(scope: RunScope, seq: number, keys: JournalKeyRing): (ChainFailure & { missingKeyId?: string }) | null {
    const [row] = this.query("read", () => this.pageStatement.all(scope.tenantId, scope.runId, seq, seq + 1, 1)) as EventRow[];
    if (row === undefined) return failure(seq, "sequence_gap", `event ${seq} is missing`);
    const event = rowToEvent(scope, row);
    if (typeof event === "string") return failure(seq, "malformed", event);
    const problem = checkEvent(scope, seq, String(row.prev_hash), event, keys);
    const keyId = missingKeyId(problem, event, keys, scope.tenantId);
    return problem === null ? null : keyId === undefined ? problem : { ...problem, missingKeyId: keyId };
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
      // Preallocated: `new Array()` (mutation testing) ends with the same values, growing as it is filled: equivalent.
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
    // The test forced true (mutation testing) prepares the same statement on every insert, only slower: equivalent.
    if (statement === undefined) {
      statement = this.db.prepare(
        "INSERT INTO events (tenant_id, run_id, seq, type, at, causation_id, data, prev_hash, hash, schema_version) VALUES " +
          Array.from({ length: rows }, () => "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", "),
      );
      this.insertStatements[rows] = statement;
    }
    return statement;
  }

  /**
   * Walks `[fromSeq, toSeq)` page by page, checking every event against its predecessor's
   * hash with the same `checkEvent` the memory store uses. Stops at the first failure.
   * `beforePage` runs before each query (the journal's closed check). With `keys`, a key id
   * the ring does not hold yet is looked up (a `pending` step) and the event checked again.
   */
  *walk(scope: RunScope, fromSeq: number, toSeq: number, beforePage: () => void, keys?: JournalKeyRing): Generator<ChainStep, void, undefined> {
    let prevHash = GENESIS_HASH;
    if (fromSeq > 0) {
      // The journal's read checked that it is open in this same synchronous step: without this call
      // nothing changes (mutation testing: equivalent); it keeps the walk safe for other callers.
      beforePage();
      const predecessor = this.query("read", () => this.hashAtStatement.get(scope.tenantId, scope.runId, fromSeq - 1)) as { hash: unknown } | undefined;
      if (predecessor === undefined) {
        const later = this.query("read", () => this.firstFromStatement.get(scope.tenantId, scope.runId, fromSeq));
        if (later !== undefined) {
          yield { failure: failure(fromSeq - 1, "sequence_gap", `event ${fromSeq - 1} is missing`) };
        }
        return;
      }
      prevHash = String(predecessor.hash);
    }
    let expected = fromSeq;
    // `<=` would only add a query that finds nothing (and one more closed check) after a full page
    // ending exactly at toSeq (mutation testing: equivalent in what is read).
    while (expected < toSeq) {
      beforePage();
      const rows = this.query("read", () => this.pageStatement.all(scope.tenantId, scope.runId, expected, toSeq, READ_PAGE_SIZE)) as EventRow[];
      for (const row of rows) {
        const event = rowToEvent(scope, row);
        let problem = typeof event === "string" ? failure(expected, "malformed", event) : checkEvent(scope, expected, prevHash, event, keys);
        // `keys === undefined` only saves a call (forced false under mutation testing: equivalent): missingKeyId returns undefined without keys.
        const keyId = keys === undefined ? undefined : missingKeyId(problem, event, keys, scope.tenantId);
        if (keyId !== undefined) {
          yield { pending: (keys as JournalKeyRing).lookup(scope.tenantId, keyId) };
          problem = checkEvent(scope, expected, prevHash, event, keys);
        }
        if (problem) {
          yield { failure: problem };
          return;
        }
        yield { event: event as JournalEvent };
        prevHash = (event as JournalEvent).hash;
        expected++;
      }
      if (rows.length < READ_PAGE_SIZE) return;
    }
  }

  private query<T>(operation: string, run: () => T): T {
    try {
      return run();
    } catch (error) {
      throw toJournalError(error, operation);
    }
  }
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

function failure(firstBadSeq: number, reason: ChainFailure["reason"], message: string): ChainFailure {
  return { ok: false, firstBadSeq, reason, message };
}
