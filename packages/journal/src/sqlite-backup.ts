import { randomUUID } from "node:crypto";
import { existsSync, linkSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { YokeError, type JournalHead, type RunScope, type VerifyResult } from "@yoke/protocol";
import { drive } from "./awaitable.js";
import { HeadWitness } from "./head-witness.js";
import { DEFAULT_BUSY_TIMEOUT_MS, openDatabaseFile, quickCheck, type SqliteDatabaseLike } from "./sqlite-database.js";
import { toJournalError } from "./sqlite-errors.js";
import { EventStatements } from "./sqlite-event-statements.js";
import { closeQuietly } from "./sqlite-journal-file.js";
import { otherJournalError } from "./witness-advice.js";
import { witnessFailure, witnessFailureError } from "./witness-rules.js";

export interface SqliteBackupOptions {
  /** How long the copy waits for a writer's lock before JOURNAL_UNAVAILABLE. Default 5000. */
  readonly busyTimeoutMs?: number;
}

/** What `backupSqliteJournal` wrote. */
export interface SqliteBackup {
  /** The copy of the database. */
  readonly filename: string;
  /** Its head witness, `<filename>-head`, written from the copy itself. */
  readonly headWitnessPath: string;
  /** Runs in the copy. */
  readonly runs: number;
  /** Events in the copy, all runs together. */
  readonly events: number;
}

const META_KEY = "head_witness";

/**
 * Copies a SQLite journal to `destination` with a head witness that matches the copy, so the
 * copy opens with no option, at its own path or restored over the original (database and
 * `-head` file together), while the source keeps being written.
 *
 * The database is copied by `VACUUM INTO`, one read transaction: a consistent snapshot that
 * writers in other connections and processes do not wait for (WAL). The source's witness is
 * read before the snapshot is taken, so every head it records was committed before it: the copy
 * must hold each of them (else the source lost acknowledged events and the backup is refused,
 * JOURNAL_TRUNCATED, rather than laundered into a witness of its own). The copy's witness is
 * then written from the copy's heads, under the source's journal id. The copy is built beside
 * `destination` and linked into place last; an existing `destination` (or `-head`) is
 * CONFIG_INVALID, never overwritten.
 *
 * @example
 * ```ts
 * const copy = await backupSqliteJournal("yoke.sqlite", "backups/yoke-2026-12-08.sqlite");
 * copy.runs; // runs in the copy; open it with createSqliteJournal({ filename: copy.filename })
 * ```
 */
export async function backupSqliteJournal(source: string, destination: string, options: SqliteBackupOptions = {}): Promise<SqliteBackup> {
  const from = resolve(source);
  const to = resolve(destination);
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!existsSync(from)) throw new YokeError("JOURNAL_NOT_INITIALIZED", `no journal at ${from}`, { details: { filename: from } });
  if (from === to) throw new YokeError("CONFIG_INVALID", `backup: the destination is the journal itself (${from})`, { details: { option: "destination" } });
  for (const path of [to, `${to}-head`]) {
    if (existsSync(path))
      throw new YokeError("CONFIG_INVALID", `backup: ${path} exists; a backup never overwrites a file`, { details: { option: "destination" } });
  }
  // Read first: every head it records was committed before the snapshot below starts.
  const before = HeadWitness.read(`${from}-head`);
  before?.close();
  const temp = `${to}.backup-${process.pid}-${randomUUID()}`;
  try {
    const db = await openDatabaseFile(from, busyTimeoutMs);
    try {
      db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      db.prepare("VACUUM INTO ?").run(temp);
    } catch (error) {
      throw toJournalError(error, `back up ${from}`);
    } finally {
      closeQuietly(db);
    }
    const copy = await openDatabaseFile(temp, busyTimeoutMs);
    let written: SqliteBackup;
    try {
      written = sealCopy(copy, before, to);
    } finally {
      closeQuietly(copy);
    }
    try {
      linkSync(temp, to);
    } catch (error) {
      rmSync(`${to}-head`, { force: true });
      const code = (error as NodeJS.ErrnoException).code;
      throw new YokeError("CONFIG_INVALID", `backup: ${to} could not be written (${code ?? String(error)})`, {
        details: { option: "destination" },
        cause: error,
      });
    }
    return written;
  } finally {
    for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(temp + suffix, { force: true });
  }
}

/** Checks the copy against the source's witness and writes the copy's own witness beside `to`. */
function sealCopy(copy: SqliteDatabaseLike, before: HeadWitness | null, to: string): SqliteBackup {
  quickCheck(copy);
  // One file, no -wal beside it: what is linked into place holds every write made here.
  copy.pragma("journal_mode = DELETE");
  if (copy.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'yoke_meta'").get() === undefined) {
    throw new YokeError("JOURNAL_CORRUPT", "backup: the file is a SQLite database but not a Yoke journal (no yoke_meta table)");
  }
  const statements = new EventStatements(copy);
  const named = (copy.prepare("SELECT value FROM yoke_meta WHERE key = ?").get(META_KEY) as { value: string } | undefined)?.value;
  if (before !== null) {
    if (named !== undefined && named !== before.journalId) throw otherJournalError(before.path, before.journalId, named);
    for (const { scope, head } of before.entries()) {
      // The statements answer synchronously: the steps run to the end in this call.
      const failure = drive(witnessFailure(statements, scope, head)) as Extract<VerifyResult, { ok: false }> | null;
      if (failure !== null) throw witnessFailureError(scope, failure, before.path);
    }
  }
  const journalId = before?.journalId ?? named ?? randomUUID();
  const heads: { scope: RunScope; head: JournalHead }[] = statements.allHeads();
  copy.prepare("INSERT INTO yoke_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(META_KEY, journalId);
  HeadWitness.create(`${to}-head`, journalId, heads).close();
  return { filename: to, headWitnessPath: `${to}-head`, runs: heads.length, events: heads.reduce((sum, { head }) => sum + head.length, 0) };
}
