import { existsSync } from "node:fs";
import { YokeError, type JournalV1, type RunLeasesV1 } from "@yoke/protocol";
import { Kysely, SqliteDialect } from "kysely";
import { journalOver } from "./create-journal.js";
import { maxEventBytesOf } from "./event-size.js";
import { keyRingOf } from "./keyed-chain.js";
import { DEFAULT_BUSY_TIMEOUT_MS, applyPragmas, openDatabaseFile, quickCheck, type SqliteDurability } from "./sqlite-database.js";
import { createSqliteDriver } from "./sqlite-driver.js";
import { toJournalError } from "./sqlite-errors.js";
import { EventStatements } from "./sqlite-event-statements.js";
import type { JournalTables } from "./sqlite-migrations.js";
import { ensureSchema } from "./sqlite-schema.js";
import { closeQuietly, createAtomically, emptyFile } from "./sqlite-journal-file.js";
import { checkOptions, type SqliteJournalOptions } from "./sqlite-journal-options.js";
import { openWitnessGuard, refuseEmptyOverWitness, type WitnessGuard } from "./sqlite-witness-guard.js";

/**
 * A `JournalV1` over one SQLite file, with the durability level it was opened with.
 *
 * @example
 * ```ts
 * const journal: SqliteJournal = await createSqliteJournal({ filename: "yoke.db", synchronous: "normal" });
 * journal.durability; // "normal": a resolved append survives a process crash, not power loss
 * journal.capabilities; // { durable: true, multiProcess: true }
 * ```
 */
export interface SqliteJournal extends JournalV1 {
  /** The synchronous level in effect: what a resolved append survives (see `SqliteJournalOptions`). */
  readonly durability: SqliteDurability;
  /** Run leases. On a read-only journal, acquire, renew and release are JOURNAL_READ_ONLY and `current` answers null. */
  readonly leases: RunLeasesV1;
  readonly readOnly: boolean;
  /** The head witness file in use, or null (in-memory database, `headWitness: "none"`, or a read-only journal that has none). */
  readonly headWitnessPath: string | null;
  /**
   * Where this open moved a witness it replaced (`headWitness: "adopt"` over one that did not
   * match, `"new"` over the lost journal's): tell the operator. Null when it moved none.
   */
  readonly headWitnessSetAside: string | null;
}

export type { SqliteJournalOptions } from "./sqlite-journal-options.js";

/**
 * Opens (creating or migrating as needed) a SQLite journal: the SQLite driver
 * (`sqlite-driver.ts`) under the semantics every store shares (`createJournal`). One `events` table keyed by
 * `(tenant_id, run_id, seq)`, WAL mode, every query scoped by tenant. Each append is one
 * `BEGIN IMMEDIATE` transaction whose inserts the primary key checks against every other
 * writer, so several journals (or processes) on one file get exactly one winner per
 * sequence number; the losers get JOURNAL_CONFLICT.
 *
 * Refuses a file written by a newer layout (JOURNAL_SCHEMA_UNSUPPORTED) and a file that is
 * not a Yoke journal, not SQLite, or fails `PRAGMA quick_check` (JOURNAL_CORRUPT). Needs the
 * optional peer dependency `better-sqlite3`.
 *
 * @example
 * ```ts
 * const journal = await createSqliteJournal({ filename: "yoke.db" });
 * const scope = { tenantId: "tenant_a", runId: "run_1" };
 * await journal.append(scope, 0, [runStartedDraft]);
 * for await (const event of journal.read(scope)) console.log(event.seq, event.type);
 * await journal.close();
 * ```
 */
export async function createSqliteJournal(options: SqliteJournalOptions): Promise<SqliteJournal> {
  const durability = options.synchronous ?? "full";
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const integrityCheck = options.integrityCheck ?? "quick";
  const readOnly = options.readOnly ?? false;
  const witnessMode = options.headWitness ?? "file";
  checkOptions(options, durability, busyTimeoutMs, integrityCheck, witnessMode);
  const keys = keyRingOf(options);
  const maxEventBytes = maxEventBytesOf(options);
  const owned = options.database === undefined;
  const filename = options.filename;
  // `existed` is true for a caller's database and for ":memory:", so the `filename !== undefined` and
  // `!== ":memory:"` tests joined to `!existed` below are redundant guards. The `!== ":memory:"` joined to `existed && emptyFile` only stops a look at a file named
  // ":memory:" in the working directory; createAtomically leaves an existing file alone (EEXIST), so
  // `||` for its guard's first `&&` is equivalent too, one wasted temp database slower.
  const existed = filename === undefined || filename === ":memory:" || existsSync(filename);
  if (filename !== undefined && !existed && (options.create === false || readOnly)) {
    throw new YokeError("JOURNAL_NOT_INITIALIZED", `${filename} does not exist${readOnly ? " (opened read-only)" : " and create is false"}`, {
      details: { filename },
    });
  }
  if (filename !== undefined && filename !== ":memory:" && existed && emptyFile(filename)) {
    // Refused before SQLite opens it: setting WAL mode alone would write a header into it.
    if (witnessMode === "file") refuseEmptyOverWitness(`${filename}-head`);
    if (options.create !== true && witnessMode !== "new") {
      throw new YokeError("JOURNAL_NOT_INITIALIZED", `${filename} is empty; pass create: true to write a new journal into it`, { details: { filename } });
    }
  }
  if (filename !== undefined && filename !== ":memory:" && !existed) await createAtomically(filename, busyTimeoutMs);
  const db = options.database ?? (await openDatabaseFile(filename as string, busyTimeoutMs, readOnly));
  let witness: WitnessGuard | null = null;
  try {
    const mode = applyPragmas(db, durability, busyTimeoutMs, readOnly);
    if (integrityCheck === "quick") quickCheck(db);
    // A read-only open may read an in-memory snapshot of the file (see openDatabaseFile): it still has the file's witness.
    const path = filename ?? db.name;
    // better-sqlite3 reports both ":memory:" and "" (an anonymous temporary database) as `memory`:
    // for it the name tests change nothing; they guard other SqliteDatabaseLike implementations.
    // For the same reason the first test as `false` is equivalent with better-sqlite3: a Database
    // opened by file name has that name and `memory` false, one opened as ":memory:" has `memory` true.
    const onDisk = filename !== undefined ? filename !== ":memory:" : !db.memory && db.name !== "" && db.name !== ":memory:";
    const witnessPath = onDisk && witnessMode !== "none" ? `${path}-head` : null;
    // A new file was created complete (createAtomically): an empty one here was not made by this call.
    // ":memory:" is a new database at every open, as a file that does not exist yet is: a journal by default.
    const allowInit = options.create ?? (witnessMode === "new" || !owned || filename === ":memory:");
    const kysely = new Kysely<JournalTables>({ dialect: new SqliteDialect({ database: db }) });
    await ensureSchema(kysely, db, {
      readOnly,
      allowInit,
      beforeInit: () => {
        if (witnessPath !== null && witnessMode === "file") refuseEmptyOverWitness(witnessPath);
      },
      describe: filename ?? db.name,
    });
    const statements = new EventStatements(db);
    if (witnessPath !== null) {
      witness = openWitnessGuard(db, statements, witnessPath, { mode: witnessMode === "none" ? "file" : witnessMode, readOnly });
    }
    const driver = createSqliteDriver(db, kysely, statements, {
      durability,
      // A writable on-disk journal is always in WAL mode (applyPragmas sets it): the two differ
      // only for a read-only journal over a rollback-mode file, which appends nothing.
      durable: mode === "wal" && onDisk,
      readOnly,
      witness,
      storeClock: options.storeClock,
    });
    return Object.assign(journalOver(driver, keys, maxEventBytes), {
      durability,
      headWitnessPath: witness?.witness.path ?? null,
      headWitnessSetAside: witness?.setAside ?? null,
    });
  } catch (error) {
    witness?.close();
    // A caller's database stays open (tested); leaving an owned one open would only leak a handle.
    if (owned) closeQuietly(db);
    // `filename !== undefined` as `true` is equivalent unless the working directory holds a file named
    // "undefined-head": for a caller's database it would only look for one.
    if (filename !== undefined && YokeError.hasCode(error, "JOURNAL_NOT_INITIALIZED") && witnessMode === "file") {
      refuseEmptyOverWitness(`${filename}-head`);
    }
    throw toJournalError(error, "open the journal");
  }
}
