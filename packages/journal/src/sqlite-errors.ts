import { YokeError } from "@yoke/protocol";

/** The `SQLITE_*` code of a driver error (better-sqlite3's `SqliteError.code`), if any. */
export function sqliteCode(error: unknown): string | undefined {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" && code.startsWith("SQLITE_") ? code : undefined;
}

/** A primary-key or unique violation: another writer stored that sequence number first. */
export function isUniqueViolation(error: unknown): boolean {
  const code = sqliteCode(error);
  return code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE";
}

export function isBusy(error: unknown): boolean {
  const code = sqliteCode(error);
  return code !== undefined && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/**
 * Maps a driver failure to the typed error the public API throws. A damaged file
 * (SQLITE_CORRUPT, SQLITE_NOTADB) is JOURNAL_CORRUPT wherever it surfaces; lock timeouts
 * are retryable JOURNAL_UNAVAILABLE; I/O and permission failures are JOURNAL_UNAVAILABLE
 * that retrying alone will not fix. YokeErrors pass through unchanged.
 */
export function toJournalError(error: unknown, operation: string): YokeError {
  if (YokeError.isInstance(error)) return error;
  const code = sqliteCode(error);
  const reason = error instanceof Error ? error.message : String(error);
  const details = { operation, sqliteCode: code ?? null };
  if (code === undefined) {
    return new YokeError("INTERNAL", `SQLite journal: ${operation} failed: ${reason}`, { details, cause: error });
  }
  if (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB") {
    return new YokeError("JOURNAL_CORRUPT", `SQLite journal: ${operation}: the file is damaged or not a database (${reason})`, {
      details,
      cause: error,
    });
  }
  if (isBusy(error)) {
    return new YokeError("JOURNAL_UNAVAILABLE", `SQLite journal: ${operation}: the database stayed locked (${reason})`, {
      details,
      cause: error,
    });
  }
  if (/^SQLITE_(IOERR|FULL|CANTOPEN|READONLY|PERM|NOMEM|NOLFS|AUTH)/.test(code)) {
    return new YokeError("JOURNAL_UNAVAILABLE", `SQLite journal: ${operation} failed: ${reason}`, {
      details,
      cause: error,
      retryable: false,
    });
  }
  return new YokeError("INTERNAL", `SQLite journal: ${operation} failed: ${reason}`, { details, cause: error });
}
