import { sql, type Kysely } from "kysely";
import type { Migration, MigrationProvider } from "kysely/migration";

/**
 * The layout version of a SQLite journal file, recorded in `PRAGMA user_version` and in
 * `yoke_meta.schema_version`. Independent of `EVENT_SCHEMA_VERSION`, which versions the
 * events stored inside. A file recording a newer version is refused, never misread.
 */
export const SQLITE_JOURNAL_SCHEMA_VERSION = 4;

/** `yoke_meta.format`: tells a Yoke journal apart from any other SQLite file. */
export const SQLITE_JOURNAL_FORMAT = "yoke-journal";

export interface EventsTable {
  tenant_id: string;
  run_id: string;
  seq: number;
  type: string;
  at: number;
  causation_id: string | null;
  /** The event's data as canonical JSON. */
  data: string;
  prev_hash: string;
  hash: string;
  schema_version: number;
}

export interface YokeMetaTable {
  key: string;
  value: string;
}

export interface IdempotencyRecordsTable {
  tenant_id: string;
  key: string;
  argument_digest: string;
  claimed_at: number;
  /** The outcome as canonical JSON; null while the key is in progress. */
  outcome: string | null;
  completed_at: number | null;
}

export interface RunLeasesTable {
  tenant_id: string;
  run_id: string;
  owner_id: string;
  /** The fencing token: +1 per acquisition, never reused. */
  token: number;
  expires_at: number;
  released: number;
}

/** The store's one fencing-token counter (one row, `id` 1): every acquisition of any run takes the next token. */
export interface LeaseTokensTable {
  id: number;
  last_token: number;
}

export interface JournalTables {
  events: EventsTable;
  run_leases: RunLeasesTable;
  lease_tokens: LeaseTokensTable;
  yoke_meta: YokeMetaTable;
  idempotency_records: IdempotencyRecordsTable;
}

/** Columns the journal reads and writes; the file is refused if one is missing. */
export const EVENTS_COLUMNS: readonly (keyof EventsTable)[] = [
  "tenant_id",
  "run_id",
  "seq",
  "type",
  "at",
  "causation_id",
  "data",
  "prev_hash",
  "hash",
  "schema_version",
];

// Each migration ends by recording the version it produced, in the same transaction.
async function recordVersion(db: Kysely<any>, version: number): Promise<void> {
  await db
    .insertInto("yoke_meta")
    .values({ key: "schema_version", value: String(version) })
    .onConflict((conflict) => conflict.column("key").doUpdateSet({ value: String(version) }))
    .execute();
  await sql.raw(`PRAGMA user_version = ${Number(version)}`).execute(db);
}

const MIGRATIONS: Record<string, Migration> = {
  "0001_events": {
    async up(db) {
      await db.schema
        .createTable("yoke_meta")
        .addColumn("key", "text", (column) => column.primaryKey())
        .addColumn("value", "text", (column) => column.notNull())
        .modifyEnd(sql`strict`)
        .execute();
      await db.insertInto("yoke_meta").values({ key: "format", value: SQLITE_JOURNAL_FORMAT }).execute();
      // The primary key is the clustered index every hot query seeks on, and the last line
      // of defence against two writers storing one sequence number.
      await db.schema
        .createTable("events")
        .addColumn("tenant_id", "text", (column) => column.notNull())
        .addColumn("run_id", "text", (column) => column.notNull())
        .addColumn("seq", "integer", (column) => column.notNull())
        .addColumn("type", "text", (column) => column.notNull())
        .addColumn("at", "integer", (column) => column.notNull())
        .addColumn("causation_id", "text")
        .addColumn("data", "text", (column) => column.notNull())
        .addColumn("prev_hash", "text", (column) => column.notNull())
        .addColumn("hash", "text", (column) => column.notNull())
        .addColumn("schema_version", "integer", (column) => column.notNull())
        .addPrimaryKeyConstraint("events_pk", ["tenant_id", "run_id", "seq"])
        .modifyEnd(sql`without rowid, strict`)
        .execute();
      await recordVersion(db, 1);
    },
  },
  // Layout 2 adds idempotency records beside the events; layout-1 files migrate in place.
  "0002_idempotency_records": {
    async up(db) {
      await db.schema
        .createTable("idempotency_records")
        .addColumn("tenant_id", "text", (column) => column.notNull())
        .addColumn("key", "text", (column) => column.notNull())
        .addColumn("argument_digest", "text", (column) => column.notNull())
        .addColumn("claimed_at", "integer", (column) => column.notNull())
        .addColumn("outcome", "text")
        .addColumn("completed_at", "integer")
        .addPrimaryKeyConstraint("idempotency_records_pk", ["tenant_id", "key"])
        .modifyEnd(sql`without rowid, strict`)
        .execute();
      await recordVersion(db, 2);
    },
  },
  // Layout 3 adds run leases (one owner per run, fencing tokens); older files migrate in place.
  "0003_run_leases": {
    async up(db) {
      await db.schema
        .createTable("run_leases")
        .addColumn("tenant_id", "text", (column) => column.notNull())
        .addColumn("run_id", "text", (column) => column.notNull())
        .addColumn("owner_id", "text", (column) => column.notNull())
        .addColumn("token", "integer", (column) => column.notNull())
        .addColumn("expires_at", "integer", (column) => column.notNull())
        .addColumn("released", "integer", (column) => column.notNull())
        .addPrimaryKeyConstraint("run_leases_pk", ["tenant_id", "run_id"])
        .modifyEnd(sql`without rowid, strict`)
        .execute();
      await recordVersion(db, 3);
    },
  },
  // Layout 4 numbers fencing tokens from one counter per file instead of per run, so a backend
  // shared by many runs can compare them. The counter starts above every per-run token an older
  // file handed out, so no run's next token can be lower than one it already issued.
  "0004_lease_tokens": {
    async up(db) {
      await db.schema
        .createTable("lease_tokens")
        .addColumn("id", "integer", (column) => column.primaryKey().check(sql`id = 1`))
        .addColumn("last_token", "integer", (column) => column.notNull())
        .modifyEnd(sql`strict`)
        .execute();
      await sql`INSERT INTO lease_tokens (id, last_token) SELECT 1, COALESCE(MAX(token), 0) FROM run_leases`.execute(db);
      await recordVersion(db, 4);
    },
  },
};

/** The migrations, in code: nothing is read from disk at runtime. */
export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return MIGRATIONS;
  },
};
