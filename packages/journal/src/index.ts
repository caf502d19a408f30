/**
 * @yoke/journal — durable, append-only, hash-chained per-run event logs behind
 * `JournalV1`: an in-memory store for tests and a SQLite store (kysely + better-sqlite3,
 * WAL) for embedded use. Appends name the sequence number they expect; a stale writer gets
 * JOURNAL_CONFLICT; a torn or edited store is reported, never read as valid. With a key
 * provider (`keys`), the chain is HMAC-SHA256 per tenant, so only a key holder can extend
 * it; signed checkpoints (Ed25519) pin a run's prefix from outside the store.
 *
 * A new store (PostgreSQL, a store of your own) implements a `JournalDriver` (its storage
 * primitives) and gets the rest from `createJournal({ driver })`: the chain, keyed chains,
 * JOURNAL_CONFLICT, leases and fencing, the head witness, paging, size limits, typed errors.
 */
export { computeEventHash, computeEventHmac } from "./chain.js";
export { createJournal } from "./create-journal.js";
export type { DriverJournal, JournalOptions } from "./create-journal.js";
export type {
  Awaitable,
  JournalDriver,
  JournalDriverTransaction,
  JournalDriverWitness,
  SealedEvent,
  StoredEvent,
  StoredLease,
} from "./journal-driver.js";
export { CHECKPOINT_MESSAGE_VERSION, checkpointMessage, signCheckpoint, verifyCheckpoint } from "./checkpoints.js";
export type { CheckpointKey, CheckpointVerdict, JournalCheckpoint } from "./checkpoints.js";
export type { JournalKeyOptions } from "./keyed-chain.js";
export { createMemoryIdempotencyStore } from "./idempotency-memory.js";
export { createSqliteIdempotencyStore } from "./idempotency-sqlite.js";
export type { SqliteIdempotencyStoreOptions } from "./idempotency-sqlite.js";
export { createMemoryJournal } from "./memory-journal.js";
export type { MemoryJournalOptions } from "./memory-journal.js";
export { DEFAULT_MAX_EVENT_BYTES } from "./event-size.js";
export type { EventSizeOptions } from "./event-size.js";
export type { SqliteDatabaseLike, SqliteDurability, SqliteStatementLike } from "./sqlite-database.js";
export { createSqliteJournal } from "./sqlite-journal.js";
export { backupSqliteJournal } from "./sqlite-backup.js";
export type { SqliteBackup, SqliteBackupOptions } from "./sqlite-backup.js";
export { createLazySqliteJournal, type LazySqliteJournal } from "./lazy-journal.js";
export type { SqliteJournal, SqliteJournalOptions } from "./sqlite-journal.js";
export { SQLITE_JOURNAL_FORMAT, SQLITE_JOURNAL_SCHEMA_VERSION } from "./sqlite-migrations.js";
export { createFileArtifactStore } from "./artifact-store-file.js";
export type { FileArtifactStore, FileArtifactStoreOptions } from "./artifact-store-file.js";
export { createMemoryArtifactStore } from "./artifact-store-memory.js";
export type { MemoryArtifactStoreOptions } from "./artifact-store-memory.js";
