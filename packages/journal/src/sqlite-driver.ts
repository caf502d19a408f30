import { YokeError, type Clock, type JournalHead, type RunScope } from "@yoke/protocol";
import type { Kysely } from "kysely";
import { isThenable } from "./awaitable.js";
import type { JournalDriver, JournalDriverTransaction, JournalDriverWitness } from "./journal-driver.js";
import type { SqliteDatabaseLike, SqliteDurability } from "./sqlite-database.js";
import { isUniqueViolation, toJournalError } from "./sqlite-errors.js";
import type { EventStatements } from "./sqlite-event-statements.js";
import { LeaseStatements, storeTime } from "./sqlite-leases.js";
import { listRunsPage } from "./sqlite-list-runs.js";
import type { JournalTables } from "./sqlite-migrations.js";
import type { WitnessGuard } from "./sqlite-witness-guard.js";

export interface SqliteDriverOptions {
  readonly durability: SqliteDurability;
  /** Durable (and open to other processes): a writable on-disk journal in WAL mode. */
  readonly durable: boolean;
  readonly readOnly: boolean;
  readonly witness: WitnessGuard | null;
  /** A test clock for lease expiry; else the database's own time. */
  readonly storeClock: Clock | undefined;
}

/**
 * The SQLite driver: the `events`, `run_leases` and `lease_tokens` tables of one open
 * database (better-sqlite3, synchronous), the head witness file beside it, and SQLite's
 * errors. Every write is one `BEGIN IMMEDIATE` transaction, which takes the file's write
 * lock for its whole (synchronous) body: no other connection, in this process or another,
 * writes in between. The `(tenant_id, run_id, seq)` primary key refuses a second event at a
 * seq, so of racing writers exactly one wins.
 */
export function createSqliteDriver(
  db: SqliteDatabaseLike,
  kysely: Kysely<JournalTables>,
  statements: EventStatements,
  options: SqliteDriverOptions,
): JournalDriver {
  const { readOnly, witness, storeClock } = options;
  // A read-only journal has no lease table (an older file's may not exist): nobody is known to hold a run.
  const leases = readOnly ? undefined : new LeaseStatements(db);
  const writable = () => leases as LeaseStatements;
  const tx: JournalDriverTransaction = {
    head: (scope) => statements.head(scope),
    readPage: (scope, fromSeq, toSeq, limit) => statements.readPage(scope, fromSeq, toSeq, limit),
    insertEvents: (events) => statements.insertAll(events),
    lease: (scope) => writable().get(scope),
    putLease: (lease, released) => writable().put(lease, released),
    lastToken: () => writable().lastToken(),
    issueToken: (token) => writable().issue(token),
    now: () => storeTime(writable(), storeClock),
  };
  const writeTransaction = db.transaction((work: (tx: JournalDriverTransaction) => unknown) => {
    const outcome = work(tx);
    // Every method of `tx` answers synchronously, so the semantics' steps do too.
    if (isThenable(outcome)) throw new YokeError("INTERNAL", "a SQLite journal transaction cannot wait for a promise");
    return outcome;
  });

  return {
    label: "SQLite journal",
    capabilities: { durable: options.durable, multiProcess: options.durable },
    readOnly,
    witness: witness === null ? null : sqliteWitness(db, witness, options.durability),
    write: <T>(work: (tx: JournalDriverTransaction) => T | PromiseLike<T>) => writeTransaction.immediate(work) as T,
    head: (scope) => statements.head(scope),
    hashAt: (scope, seq) => statements.hashAt(scope, seq),
    hasEventFrom: (scope, seq) => statements.hasEventFrom(scope, seq),
    readPage: (scope, fromSeq, toSeq, limit) => statements.readPage(scope, fromSeq, toSeq, limit),
    listRunsPage: (tenantId, afterRunId, limit) => listRunsPage(kysely, tenantId, afterRunId, limit),
    currentLease: (scope) => leases?.get(scope) ?? null,
    isDuplicateEvent: isUniqueViolation,
    toJournalError,
    close: () => kysely.destroy(),
  };
}

/** The head witness file as the driver's witness. */
function sqliteWitness(db: SqliteDatabaseLike, guard: WitnessGuard, durability: SqliteDurability): JournalDriverWitness {
  // Whether the witness line is fsynced: only a power loss tells the two apart.
  const sync = durability === "full";
  // The witness line is written after the commit (a crash before it leaves the witness one
  // append behind, never ahead) and under the write lock again, so no compaction races it.
  const recordTransaction = db.transaction((scope: RunScope, head: JournalHead) => guard.record(scope, head, sync));
  return {
    location: guard.witness.path,
    expected: (scope) => guard.witness.expected(scope),
    refresh: () => guard.witness.refresh(),
    record: (scope, head) => {
      recordTransaction.immediate(scope, head);
    },
    close: () => guard.close(),
  };
}
