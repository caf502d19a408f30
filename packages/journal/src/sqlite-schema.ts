import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { YokeError } from "@yoke/protocol";
import type { Kysely, TableMetadata } from "kysely";
import { Migrator } from "kysely/migration";
import type { SqliteDatabaseLike } from "./sqlite-database.js";
import { toJournalError } from "./sqlite-errors.js";
import { EVENTS_COLUMNS, SQLITE_JOURNAL_FORMAT, SQLITE_JOURNAL_SCHEMA_VERSION, migrationProvider, type JournalTables } from "./sqlite-migrations.js";

const KYSELY_TABLES = new Set(["kysely_migration", "kysely_migration_lock"]);

/**
 * Makes sure the open database is a Yoke journal at the current layout version: creates it
 * when the file is new, migrates it when it is older, refuses it when it is newer
 * (JOURNAL_SCHEMA_UNSUPPORTED) or when it is some other SQLite database (JOURNAL_CORRUPT).
 */
export interface EnsureSchemaOptions {
  /** Neither create nor migrate: a file at an older layout is read as it is. */
  readonly readOnly: boolean;
  /** Whether an empty (or table-less) file may become a new journal; otherwise JOURNAL_NOT_INITIALIZED. */
  readonly allowInit: boolean;
  /** Called before a new journal is written into an empty file; may refuse by throwing. */
  readonly beforeInit: () => void;
  /** The file, for messages. */
  readonly describe: string;
}

export async function ensureSchema(kysely: Kysely<JournalTables>, db: SqliteDatabaseLike, options: EnsureSchemaOptions): Promise<void> {
  const fileVersion = userVersion(db);
  if (fileVersion > SQLITE_JOURNAL_SCHEMA_VERSION) throw unsupported(fileVersion);
  const tables = await kysely.introspection.getTables({ withInternalKyselyTables: true });
  // Only kysely's bookkeeping tables: a first open that stopped before its migration committed.
  const fresh = tables.every((table) => KYSELY_TABLES.has(table.name));
  if (fresh) {
    if (!options.allowInit || options.readOnly) {
      throw new YokeError("JOURNAL_NOT_INITIALIZED", `${options.describe} exists but holds no journal; pass create: true to write a new journal into it`, {
        details: { filename: options.describe },
      });
    }
    options.beforeInit();
  } else {
    await checkIdentity(kysely, tables);
  }
  if (options.readOnly) {
    await checkEventsTable(kysely);
    return;
  }
  if (fileVersion < SQLITE_JOURNAL_SCHEMA_VERSION) await migrate(kysely, db);

  await checkEventsTable(kysely);
  const recorded = userVersion(db);
  if (recorded !== SQLITE_JOURNAL_SCHEMA_VERSION) {
    throw new YokeError("JOURNAL_CORRUPT", `the journal file records layout version ${recorded} after migration`, {
      details: { recorded, expected: SQLITE_JOURNAL_SCHEMA_VERSION },
    });
  }
}

async function checkEventsTable(kysely: Kysely<JournalTables>): Promise<void> {
  const after = await kysely.introspection.getTables();
  await checkIdentity(kysely, after);
  const events = after.find((table) => table.name === "events");
  const present = new Set(events?.columns.map((column) => column.name));
  const missing = EVENTS_COLUMNS.filter((column) => !present.has(column));
  if (missing.length > 0) {
    throw new YokeError("JOURNAL_CORRUPT", `the journal's events table is missing columns: ${missing.join(", ")}`, {
      details: { missing },
    });
  }
}

async function checkIdentity(kysely: Kysely<JournalTables>, tables: readonly TableMetadata[]): Promise<void> {
  if (!tables.some((table) => table.name === "yoke_meta")) {
    throw new YokeError("JOURNAL_CORRUPT", "the file is a SQLite database but not a Yoke journal (no yoke_meta table)", {
      details: { tables: tables.map((table) => table.name).slice(0, 20) },
    });
  }
  const rows = await kysely.selectFrom("yoke_meta").select(["key", "value"]).execute();
  const meta = new Map(rows.map((row) => [row.key, row.value]));
  if (meta.get("format") !== SQLITE_JOURNAL_FORMAT) {
    throw new YokeError("JOURNAL_CORRUPT", "the file is a SQLite database but not a Yoke journal (format marker missing)", {
      details: { format: meta.get("format") ?? null },
    });
  }
  const recorded = Number(meta.get("schema_version"));
  if (!Number.isInteger(recorded)) {
    throw new YokeError("JOURNAL_CORRUPT", "the journal file does not record a valid layout version", {
      details: { schemaVersion: meta.get("schema_version") ?? null },
    });
  }
  if (recorded > SQLITE_JOURNAL_SCHEMA_VERSION) throw unsupported(recorded);
}

/**
 * Runs the pending migrations inside one `BEGIN IMMEDIATE` transaction, so a second
 * process opening the same new file waits for the first (busy timeout) and then finds the
 * work done. Kysely's own transaction would begin deferred and let both read "nothing
 * applied". Within one process, opens of one file are queued instead: a second connection
 * waiting synchronously for the lock would block the thread the first one needs.
 */
async function migrate(kysely: Kysely<JournalTables>, db: SqliteDatabaseLike): Promise<void> {
  await queuedPerFile(db, async () => {
    db.prepare("BEGIN IMMEDIATE").run();
    try {
      if (userVersion(db) < SQLITE_JOURNAL_SCHEMA_VERSION) {
        const migrator = new Migrator({ db: kysely, provider: migrationProvider, disableTransactions: true });
        const { error } = await migrator.migrateToLatest();
        if (error !== undefined) throw error;
      }
      db.prepare("COMMIT").run();
    } catch (error) {
      if (db.inTransaction) db.prepare("ROLLBACK").run();
      throw toJournalError(error, "migrate the journal schema");
    }
  });
}

const migrationsInProgress = new Map<string, Promise<void>>();

async function queuedPerFile(db: SqliteDatabaseLike, run: () => Promise<void>): Promise<void> {
  if (db.memory) return run();
  const key = fileIdentity(db.name);
  const previous = migrationsInProgress.get(key) ?? Promise.resolve();
  const current = previous.catch(() => undefined).then(run);
  const settled = current.catch(() => undefined);
  migrationsInProgress.set(key, settled);
  try {
    await current;
  } finally {
    if (migrationsInProgress.get(key) === settled) migrationsInProgress.delete(key);
  }
}

function fileIdentity(name: string): string {
  try {
    return realpathSync(name);
  } catch {
    return resolve(name);
  }
}

function userVersion(db: SqliteDatabaseLike): number {
  return Number(db.pragma("user_version", { simple: true }));
}

function unsupported(version: number): YokeError {
  return new YokeError(
    "JOURNAL_SCHEMA_UNSUPPORTED",
    `the journal file has layout version ${version}; this @yoke/journal reads up to ${SQLITE_JOURNAL_SCHEMA_VERSION}. Upgrade @yoke/journal to open it.`,
    { details: { fileVersion: version, supported: SQLITE_JOURNAL_SCHEMA_VERSION } },
  );
}
