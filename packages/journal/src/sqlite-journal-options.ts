import { YokeError, type Clock } from "@yoke/protocol";
import type { EventSizeOptions } from "./event-size.js";
import type { JournalKeyOptions } from "./keyed-chain.js";
import type { SqliteDatabaseLike, SqliteDurability } from "./sqlite-database.js";
import type { HeadWitnessMode } from "./sqlite-witness-guard.js";

/** Where the journal lives, and how hard a resolved append is held. */
export type SqliteJournalOptions = (
  | {
      /** Path of the journal file; created with the current schema when it does not exist. */
      readonly filename: string;
      readonly database?: undefined;
    }
  | {
      /**
       * An open better-sqlite3 database the journal takes over: `close()` closes it. If
       * opening fails, it is left open for the caller.
       */
      readonly database: SqliteDatabaseLike;
      readonly filename?: undefined;
    }
) & {
  /**
   * `"full"` (default): a resolved append survives power loss (WAL + `synchronous=FULL`).
   * `"normal"`: a resolved append survives a process crash but may be lost, as a whole,
   * on power loss (WAL + `synchronous=NORMAL`); appends are cheaper.
   */
  readonly synchronous?: SqliteDurability;
  /** How long a writer waits for another process's lock before JOURNAL_UNAVAILABLE. Default 5000. */
  readonly busyTimeoutMs?: number;
  /**
   * `"quick"` (default): `PRAGMA quick_check` on open, so a damaged file is refused
   * (JOURNAL_CORRUPT) before anything is read or written; it reads the whole file, so its
   * cost grows with the journal. `"none"`: skip it (a process that reopens a large journal
   * often, or one that runs its own checks). Reads still verify every event's hash.
   */
  readonly integrityCheck?: "quick" | "none";
  /**
   * Whether a new journal may be written. Default: only when `filename` does not exist yet
   * (with `database`: when the database is empty). `true`: also into an existing file that
   * is empty or holds no tables (never over a head witness that records events). `false`:
   * never; a missing, empty or table-less file is JOURNAL_NOT_INITIALIZED.
   */
  readonly create?: boolean;
  /**
   * Open without writing anything (an auditor's `verify`): appends and leases are
   * JOURNAL_READ_ONLY, no migration runs, and the head witness is checked, never written.
   */
  readonly readOnly?: boolean;
  /**
   * The head witness: a sidecar file `<filename>-head` holding every run's last acknowledged
   * head, checked on open, on reads and by `verify`, so losing acknowledged events (deleted
   * rows, a deleted or damaged `-wal`, a truncated file) is JOURNAL_TRUNCATED instead of a
   * shorter journal that verifies. See `HeadWitnessMode`. Default `"file"` (`"none"` for an
   * in-memory database).
   */
  readonly headWitness?: HeadWitnessMode;
  /**
   * The store's time source, on which lease expiry is judged. Default (and what production
   * should use): the database's own clock, read inside each lease transaction and each
   * append's lease check (`unixepoch('subsec')`), so every process and harness on the file
   * judges expiry on one time, whatever clock it was given. Pass a clock only to make tests
   * deterministic, and pass the same one to every handle on the file.
   */
  readonly storeClock?: Clock;
  /**
   * @deprecated Ignored. Lease expiry used to be measured on this (the caller's) clock, so a
   * caller whose clock ran ahead could take a live owner's lease; it is now the store's time
   * (`storeClock`). Tests that moved it to expire leases pass `storeClock` instead.
   */
  readonly clock?: Clock;
} & JournalKeyOptions &
  EventSizeOptions;

export { LONE_SURROGATE, storable } from "./scope-text.js";

/** CONFIG_INVALID listing every problem with `options` in `details.problems` (the strings are API). */
export function checkOptions(options: SqliteJournalOptions, durability: unknown, busyTimeoutMs: unknown, integrityCheck: unknown, witnessMode: unknown): void {
  const problems: string[] = [];
  if ((options.filename === undefined) === (options.database === undefined)) problems.push("pass exactly one of filename or database");
  if (options.filename !== undefined && typeof options.filename !== "string") problems.push("filename must be a string");
  if (durability !== "full" && durability !== "normal") problems.push('synchronous must be "full" or "normal"');
  if (typeof busyTimeoutMs !== "number" || !Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    problems.push("busyTimeoutMs must be a non-negative integer");
  }
  if (integrityCheck !== "quick" && integrityCheck !== "none") problems.push('integrityCheck must be "quick" or "none"');
  if (witnessMode !== "file" && witnessMode !== "adopt" && witnessMode !== "new" && witnessMode !== "none") {
    problems.push('headWitness must be "file", "adopt", "new" or "none"');
  }
  if (options.readOnly === true && (witnessMode === "adopt" || witnessMode === "new"))
    problems.push(`a read-only journal cannot write a head witness (headWitness: "${witnessMode}")`);
  if (options.create !== undefined && typeof options.create !== "boolean") problems.push("create must be a boolean");
  if (options.readOnly !== undefined && typeof options.readOnly !== "boolean") problems.push("readOnly must be a boolean");
  if (options.readOnly === true && options.create === true) problems.push("a read-only journal cannot create");
  if (problems.length > 0) {
    throw new YokeError("CONFIG_INVALID", `createSqliteJournal: ${problems.join("; ")}`, { details: { problems } });
  }
}
