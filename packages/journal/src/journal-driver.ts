import type { JournalCapabilities, JournalEvent, JournalHead, RunLease, RunScope, RunSummary, YokeError } from "@yoke/protocol";
import type { Awaitable } from "./awaitable.js";
import type { SealedEvent } from "./chain.js";
import type { StoredLease } from "./lease-rules.js";

export type { Awaitable } from "./awaitable.js";
export type { SealedEvent } from "./chain.js";
export type { StoredLease } from "./lease-rules.js";

/**
 * A stored event as a driver reads it back: the event (its fields as stored, unchecked; the
 * semantics check shape, scope, seq and hash before anything is yielded), or, when the row
 * cannot even be decoded (its data is not JSON), a string saying why. The semantics report
 * such a row as `malformed` at its place in the run.
 */
export type StoredEvent = JournalEvent | string;

/**
 * The driver of a journal store: the storage primitives of one backend (SQLite, PostgreSQL,
 * a store of your own) and nothing else. `createJournal({ driver })` turns a driver into a
 * `JournalV1` with run leases by adding the shared semantics: the hash chain (sealing,
 * keyed chains, verification), optimistic concurrency (JOURNAL_CONFLICT), the lease rules and
 * fencing, the head witness checks, paging, event size limits and the typed errors. A new
 * store implements this interface only, the way a kysely dialect supplies a `Driver` and
 * reuses the query builder.
 *
 * Every method may answer synchronously or with a promise (`Awaitable`). A synchronous driver
 * (better-sqlite3) gets its whole write transaction run in one synchronous call; an
 * asynchronous one (a network client) is awaited step by step.
 *
 * What the semantics rely on:
 * - Runs are keyed by `(tenantId, runId)`; nothing of one tenant is visible through another.
 * - Events of a run are stored under their `seq`, at most one per `seq`: inserting a `seq`
 *   that is already stored fails with an error for which `isDuplicateEvent` is true (a
 *   primary key on `(tenant_id, run_id, seq)` does it), so of racing writers exactly one wins.
 * - `write` excludes every other writer of the store (this process's and others') for the
 *   whole of `work`, and commits all of it or nothing.
 * - What a driver stores it gives back byte for byte: the sealed event's fields and its data
 *   as the canonical JSON it was sealed over (`SealedEvent.canonicalData`).
 *
 * @example
 * ```ts
 * import { createJournal, type JournalDriver } from "@yoke/journal";
 *
 * const driver: JournalDriver = createMyPostgresDriver(pool); // implements the primitives below
 * const journal = createJournal({ driver, keys });             // JournalV1 + leases
 * ```
 */
export interface JournalDriver {
  /** Names the store in messages: `the ${label} is closed`. Example: `"SQLite journal"`. */
  readonly label: string;
  readonly capabilities: JournalCapabilities;
  /** A read-only store: appends and lease changes are refused with JOURNAL_READ_ONLY. */
  readonly readOnly: boolean;
  /** The store's head witness, or null when it keeps none (see `JournalDriverWitness`). */
  readonly witness: JournalDriverWitness | null;

  /**
   * Runs `work` in one write transaction: exclusive against every other writer, committed
   * when `work` returns (or its promise resolves), rolled back when it throws. Returns what
   * `work` returned. A synchronous driver may require `work` to answer synchronously: it
   * does whenever every method of `tx` does.
   */
  write<T>(work: (tx: JournalDriverTransaction) => Awaitable<T>): Awaitable<T>;

  /** The run's head as stored now (not cached: other writers' appends are seen), or null for no events. */
  head(scope: RunScope): Awaitable<JournalHead | null>;
  /** The hash of the run's event at `seq`, or null when it has none there. */
  hashAt(scope: RunScope, seq: number): Awaitable<string | null>;
  /** Whether the run has any event at `seq` or later (tells a gap from the end of the run). */
  hasEventFrom(scope: RunScope, seq: number): Awaitable<boolean>;
  /**
   * Up to `limit` events of the run with `fromSeq <= seq < toSeq`, in `seq` order. The
   * semantics read a run page by page, so a long run is read in bounded memory; a page
   * shorter than `limit` ends the run.
   */
  readPage(scope: RunScope, fromSeq: number, toSeq: number, limit: number): Awaitable<Iterable<StoredEvent>>;
  /**
   * Up to `limit` summaries of the tenant's runs, ordered by run id in one order the store
   * keeps between calls (SQLite: its binary order of UTF-8), starting after `afterRunId`
   * (null: from the first). `length` and `lastAt` come from the run's highest `seq`,
   * `firstAt` from its lowest. The semantics ask for the next page after the last run id of
   * a full one.
   */
  listRunsPage(tenantId: string, afterRunId: string | null, limit: number): Awaitable<readonly RunSummary[]>;
  /** The run's latest lease as stored, or null (a store that has no lease table yet: null). */
  currentLease(scope: RunScope): Awaitable<StoredLease | null>;

  /** True for the error an insert throws when the `seq` is already stored (another writer won). */
  isDuplicateEvent(error: unknown): boolean;
  /**
   * The typed error the public API throws for a driver failure during `operation` (a
   * phrase: "append", "read the head"). YokeErrors must pass through unchanged. Typical:
   * a damaged store is JOURNAL_CORRUPT, a lock timeout retryable JOURNAL_UNAVAILABLE.
   */
  toJournalError(error: unknown, operation: string): YokeError;
  /** Releases the store's resources. Called once. */
  close(): Awaitable<void>;
}

/** What a driver offers inside `write`: reads and writes that see, and are part of, that transaction. */
export interface JournalDriverTransaction {
  /** The run's head as stored in this transaction, or null. */
  head(scope: RunScope): Awaitable<JournalHead | null>;
  /** As `JournalDriver.readPage`, inside the transaction. */
  readPage(scope: RunScope, fromSeq: number, toSeq: number, limit: number): Awaitable<Iterable<StoredEvent>>;
  /** Stores sealed events (one run, consecutive seqs). A stored `seq` must fail the insert (see `isDuplicateEvent`). */
  insertEvents(events: readonly SealedEvent[]): Awaitable<void>;
  /** The run's latest lease row, or null. */
  lease(scope: RunScope): Awaitable<StoredLease | null>;
  /** Writes the run's latest lease row (one row per run, replaced). */
  putLease(lease: RunLease, released: boolean): Awaitable<void>;
  /** The last fencing token this store handed out, for any run (0 before the first). */
  lastToken(): Awaitable<number>;
  /** Records `token` as the last fencing token handed out. */
  issueToken(token: number): Awaitable<void>;
  /**
   * The store's time, in ms since the epoch: lease expiry is judged on it, one time for every
   * process on the store (a database's clock, or a test clock the driver was given).
   */
  now(): Awaitable<number>;
}

/**
 * A head witness: the last acknowledged head of every run, kept outside the store it
 * protects (a sidecar file for SQLite). The semantics check every read to the end and every
 * `verify` against it (fewer events than witnessed is JOURNAL_TRUNCATED, another hash at the
 * witnessed head JOURNAL_WITNESS_INVALID) and record each append in it after the commit and
 * before the append resolves.
 */
export interface JournalDriverWitness {
  /** Where the witness is (a path): named in errors' `details.witness`. */
  readonly location: string;
  /** The run's witnessed head, or undefined when the witness holds none for it. */
  expected(scope: RunScope): Awaitable<JournalHead | undefined>;
  /** Catches up with other writers' records before a check. */
  refresh(): Awaitable<void>;
  /** Records an acknowledged head (after its append committed), excluding concurrent rewrites of the witness. */
  record(scope: RunScope, head: JournalHead): Awaitable<void>;
  close(): Awaitable<void>;
}
