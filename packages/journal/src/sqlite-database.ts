import { existsSync, readFileSync } from "node:fs";
import { YokeError } from "@yoke/protocol";
import { toJournalError } from "./sqlite-errors.js";

/** The subset of a better-sqlite3 `Statement` the SQLite journal uses. */
export interface SqliteStatementLike {
  readonly reader: boolean;
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
}

/**
 * The subset of a better-sqlite3 `Database` the SQLite journal uses, typed structurally so
 * `@yoke/journal` needs neither the driver nor its types unless you use this store.
 *
 * @example
 * ```ts
 * import Database from "better-sqlite3";
 * const journal = await createSqliteJournal({ database: new Database("yoke.db") });
 * ```
 */
export interface SqliteDatabaseLike {
  readonly open: boolean;
  readonly memory: boolean;
  /** The file name the database was opened with. */
  readonly name: string;
  readonly inTransaction: boolean;
  prepare(source: string): SqliteStatementLike;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  // `any`: better-sqlite3 types its transaction wrapper's arguments that way.
  transaction(fn: (...params: any[]) => unknown): { immediate(...params: any[]): unknown };
  close(): unknown;
}

/**
 * `"full"`: WAL with `synchronous=FULL`. A resolved append survives power loss and an
 * operating-system crash, at the cost of one fsync of the WAL per append.
 * `"normal"`: WAL with `synchronous=NORMAL`. A resolved append survives a crash of the
 * process; after power loss the most recent appends may be missing (never torn: the log
 * stays a valid prefix).
 */
export type SqliteDurability = "full" | "normal";

export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/** Opens `filename` with better-sqlite3, loaded on first use because it is an optional peer. */
export async function openDatabaseFile(filename: string, busyTimeoutMs: number, readOnly = false): Promise<SqliteDatabaseLike> {
  let Database: new (filename: string, options: { timeout: number; readonly?: boolean; fileMustExist?: boolean }) => SqliteDatabaseLike;
  try {
    ({ default: Database } = await import("better-sqlite3"));
  } catch (error) {
    throw new YokeError(
      "DEPENDENCY_MISSING",
      "the SQLite journal needs the optional peer dependency better-sqlite3: install it (npm install better-sqlite3), or pass { database }",
      { cause: error, details: { package: "better-sqlite3" } },
    );
  }
  try {
    if (!readOnly) return new Database(filename, { timeout: busyTimeoutMs });
    const db = new Database(filename, { timeout: busyTimeoutMs, readonly: true, fileMustExist: true });
    try {
      db.prepare("SELECT count(*) FROM sqlite_master").get();
      return db;
    } catch (error) {
      db.close();
      if (!cannotOpenShared(error) || existsSync(`${filename}-wal`)) throw error;
      return snapshotOf(Database as unknown as new (bytes: Buffer, options: { readonly: boolean }) => SqliteDatabaseLike, filename);
    }
  } catch (error) {
    throw toJournalError(error, `open ${filename}`);
  }
}

/**
 * A reader that may not write the journal's directory cannot create the `-shm` file SQLite
 * needs to read a WAL-mode file in place (SQLITE_READONLY_DIRECTORY or SQLITE_CANTOPEN).
 */
function cannotOpenShared(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "SQLITE_READONLY_DIRECTORY" || code === "SQLITE_CANTOPEN" || code === "SQLITE_READONLY_CANTINIT";
}

/**
 * The file as it is now, read into memory: what a reader without write access to the
 * directory can open when no writer is active (no `-wal`: every commit is in the file). The
 * header's WAL marker (bytes 18–19) is set to the rollback format in the copy, which an
 * in-memory database needs; no checksum covers them. A copy torn by a checkpoint racing the
 * read fails the integrity check or the hash chain, never passes as a shorter run.
 */
function snapshotOf(Database: new (bytes: Buffer, options: { readonly: boolean }) => SqliteDatabaseLike, filename: string): SqliteDatabaseLike {
  const bytes = readFileSync(filename);
  if (bytes.length >= 20 && bytes[18] === 2 && bytes[19] === 2) {
    bytes[18] = 1;
    bytes[19] = 1;
  }
  return new Database(bytes, { readonly: true });
}

/**
 * WAL, busy timeout, foreign keys and the synchronous level. Returns the journal mode in
 * effect: `"wal"` for a file, `"memory"` for an in-memory database.
 */
export function applyPragmas(db: SqliteDatabaseLike, durability: SqliteDurability, busyTimeoutMs: number, readOnly = false): string {
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  // A read-only connection changes nothing: the file keeps the journal mode its writers set.
  if (readOnly) return String(db.pragma("journal_mode", { simple: true })).toLowerCase();
  const mode = String(db.pragma("journal_mode = WAL", { simple: true })).toLowerCase();
  db.pragma(`synchronous = ${durability === "full" ? "FULL" : "NORMAL"}`);
  db.pragma("foreign_keys = ON");
  return mode;
}

/** `PRAGMA quick_check`: page-level structure of the whole file. Throws JOURNAL_CORRUPT. */
export function quickCheck(db: SqliteDatabaseLike): void {
  const problems = (db.pragma("quick_check", { simple: false }) as Array<Record<string, unknown>>)
    .map((row) => String(Object.values(row)[0]))
    .filter((line) => line !== "ok");
  if (problems.length > 0) {
    throw new YokeError("JOURNAL_CORRUPT", `the journal file failed its integrity check: ${problems.slice(0, 3).join("; ")}`, {
      details: { problems: problems.slice(0, 10) },
    });
  }
}
