import { randomUUID } from "node:crypto";
import { linkSync, rmSync, statSync } from "node:fs";
import { YokeError } from "@yoke/protocol";
import { Kysely, SqliteDialect } from "kysely";
import { applyPragmas, openDatabaseFile, type SqliteDatabaseLike } from "./sqlite-database.js";
import { toJournalError } from "./sqlite-errors.js";
import type { JournalTables } from "./sqlite-migrations.js";
import { ensureSchema } from "./sqlite-schema.js";

/**
 * Writes a new, empty journal at `filename` as a whole: built in a temp file beside it, then
 * hard-linked into place, which fails if the name exists. So every process that finds the
 * file finds a complete journal (several may create at once; one link wins), and an empty
 * or table-less file at the name is never one being created: it is damage.
 */
export async function createAtomically(filename: string, busyTimeoutMs: number): Promise<void> {
  const temp = `${filename}.creating-${process.pid}-${randomUUID()}`;
  try {
    const db = await openDatabaseFile(temp, busyTimeoutMs);
    try {
      applyPragmas(db, "full", busyTimeoutMs);
      const kysely = new Kysely<JournalTables>({ dialect: new SqliteDialect({ database: db }) });
      await ensureSchema(kysely, db, { readOnly: false, allowInit: true, beforeInit: () => undefined, describe: filename });
    } finally {
      closeQuietly(db);
    }
    try {
      linkSync(temp, filename);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EEXIST") {
        throw new YokeError("JOURNAL_UNAVAILABLE", `SQLite journal: could not create ${filename} (${code ?? String(error)})`, {
          details: { filename, code: code ?? null },
          cause: error,
          retryable: false,
        });
      }
    }
  } catch (error) {
    throw toJournalError(error, `create ${filename}`);
  } finally {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(temp + suffix, { force: true });
  }
}

export function emptyFile(filename: string): boolean {
  try {
    return statSync(filename).isFile() && statSync(filename).size === 0;
  } catch {
    return false;
  }
}

export function closeQuietly(db: SqliteDatabaseLike): void {
  try {
    if (db.open) db.close();
  } catch {
    // The open failure is the error worth reporting.
  }
}
