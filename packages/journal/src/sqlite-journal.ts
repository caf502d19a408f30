import {
  GENESIS_HASH,
  YokeError,
  type AppendResult,
  type EventDraft,
  type JournalEvent,
  type JournalV1,
  type ReadOptions,
  type RunScope,
  type RunSummary,
  type VerifyResult,
} from "@yoke/protocol";
import { Kysely, SqliteDialect } from "kysely";
import { EMPTY_HEAD, chainError, conflictError, sealDrafts } from "./chain.js";
import {
  DEFAULT_BUSY_TIMEOUT_MS,
  applyPragmas,
  openDatabaseFile,
  quickCheck,
  type SqliteDatabaseLike,
  type SqliteDurability,
} from "./sqlite-database.js";
import { isUniqueViolation, toJournalError } from "./sqlite-errors.js";
import { EventStatements } from "./sqlite-event-statements.js";
import { HeadCache } from "./sqlite-head-cache.js";
import { LIST_RUNS_PAGE_SIZE, listRunsPage } from "./sqlite-list-runs.js";
import type { JournalTables } from "./sqlite-migrations.js";
import { ensureSchema } from "./sqlite-schema.js";

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
};

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
}

/** No run can have a lone surrogate in its ids: SQLite stores text as UTF-8, which cannot hold one. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const END_OF_RUN = Number.MAX_SAFE_INTEGER;

/**
 * Opens (creating or migrating as needed) a SQLite journal: one `events` table keyed by
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
  checkOptions(options, durability, busyTimeoutMs, integrityCheck);
  const owned = options.database === undefined;
  const db = options.database ?? (await openDatabaseFile(options.filename as string, busyTimeoutMs));
  try {
    const mode = applyPragmas(db, durability, busyTimeoutMs);
    if (integrityCheck === "quick") quickCheck(db);
    const kysely = new Kysely<JournalTables>({ dialect: new SqliteDialect({ database: db }) });
    await ensureSchema(kysely, db);
    return buildJournal(db, kysely, durability, mode === "wal" && !db.memory);
  } catch (error) {
    if (owned) closeQuietly(db);
    throw toJournalError(error, "open the journal");
  }
}

function buildJournal(
  db: SqliteDatabaseLike,
  kysely: Kysely<JournalTables>,
  durability: SqliteDurability,
  onDisk: boolean,
): SqliteJournal {
  const statements = new EventStatements(db);
  const heads = new HeadCache();
  let closed = false;
  const assertOpen = () => {
    if (closed) throw new YokeError("JOURNAL_CLOSED", "the SQLite journal is closed");
  };
  const appendTransaction = db.transaction((scope: RunScope, expectedSeq: number, drafts: readonly EventDraft[]) => {
    const cached = heads.get(scope);
    const head = cached?.length === expectedSeq ? cached : (statements.head(scope) ?? EMPTY_HEAD);
    if (expectedSeq !== head.length) throw conflictError(scope, expectedSeq, head.length);
    const sealed = sealDrafts(scope, head, drafts);
    const events: JournalEvent[] = new Array(sealed.length);
    for (let index = 0; index < sealed.length; index++) {
      const { event } = sealed[index]!;
      if (event.causationId !== null && LONE_SURROGATE.test(event.causationId)) {
        throw new YokeError("JOURNAL_INVALID_APPEND", `event ${event.seq}: causationId is not well-formed Unicode`, {
          details: { seq: event.seq },
        });
      }
      events[index] = event;
    }
    statements.insertAll(sealed);
    return events;
  });

  return {
    specificationVersion: "v1",
    capabilities: { durable: onDisk, multiProcess: onDisk },
    durability,

    async append(scope, expectedSeq, drafts): Promise<AppendResult> {
      assertOpen();
      if (!storable(scope)) {
        throw new YokeError("JOURNAL_INVALID_APPEND", "tenantId and runId must be well-formed Unicode strings", {
          details: { runId: String(scope.runId) },
        });
      }
      let events: JournalEvent[];
      try {
        events = appendTransaction.immediate(scope, expectedSeq, drafts) as JournalEvent[];
      } catch (error) {
        heads.forget(scope);
        if (!isUniqueViolation(error)) throw toJournalError(error, "append");
        // Another connection stored this sequence number since this journal last saw the run.
        let actual: number;
        try {
          actual = statements.head(scope)?.length ?? expectedSeq + 1;
        } catch {
          actual = expectedSeq + 1;
        }
        throw conflictError(scope, expectedSeq, actual);
      }
      const last = events.at(-1) as JournalEvent;
      heads.set(scope, { length: last.seq + 1, hash: last.hash });
      return { lastSeq: last.seq, headHash: last.hash, events };
    },

    async *read(scope, options: ReadOptions = {}): AsyncGenerator<JournalEvent> {
      assertOpen();
      const fromSeq = sequenceOption(options.fromSeq, 0, "fromSeq");
      const toSeq = sequenceOption(options.toSeq, END_OF_RUN, "toSeq");
      if (!storable(scope)) return;
      for (const step of statements.walk(scope, fromSeq, toSeq, assertOpen)) {
        if (step.failure) throw chainError(scope, step.failure);
        yield step.event;
      }
    },

    async head(scope) {
      assertOpen();
      if (!storable(scope)) return null;
      try {
        return statements.head(scope);
      } catch (error) {
        throw toJournalError(error, "read the head");
      }
    },

    async verify(scope): Promise<VerifyResult> {
      assertOpen();
      let events = 0;
      let headHash = GENESIS_HASH;
      if (!storable(scope)) return { ok: true, events, headHash };
      try {
        for (const step of statements.walk(scope, 0, END_OF_RUN, assertOpen)) {
          if (step.failure) return step.failure;
          events++;
          headHash = step.event.hash;
        }
      } catch (error) {
        // A damaged page is bad data like any other: name where the readable chain ends.
        if (!YokeError.hasCode(error, "JOURNAL_CORRUPT")) throw error;
        return { ok: false, firstBadSeq: events, reason: "malformed", message: error.message };
      }
      return { ok: true, events, headHash };
    },

    async *listRuns(tenantId): AsyncGenerator<RunSummary> {
      assertOpen();
      if (!storable({ tenantId, runId: "" })) return;
      let after: string | null = null;
      for (;;) {
        assertOpen();
        const page = await listRunsPage(kysely, tenantId, after);
        yield* page;
        if (page.length < LIST_RUNS_PAGE_SIZE) return;
        after = (page.at(-1) as RunSummary).runId;
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      try {
        await kysely.destroy();
      } catch (error) {
        throw toJournalError(error, "close");
      }
    },
  };
}

function storable(scope: RunScope): boolean {
  return (
    typeof scope.tenantId === "string" &&
    typeof scope.runId === "string" &&
    !LONE_SURROGATE.test(scope.tenantId) &&
    !LONE_SURROGATE.test(scope.runId)
  );
}

function sequenceOption(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new YokeError("CONFIG_INVALID", `read option ${name} must be a non-negative integer`, { details: { [name]: value } });
  }
  return value;
}

function checkOptions(options: SqliteJournalOptions, durability: unknown, busyTimeoutMs: unknown, integrityCheck: unknown): void {
  const problems: string[] = [];
  if ((options.filename === undefined) === (options.database === undefined)) problems.push("pass exactly one of filename or database");
  if (options.filename !== undefined && typeof options.filename !== "string") problems.push("filename must be a string");
  if (durability !== "full" && durability !== "normal") problems.push('synchronous must be "full" or "normal"');
  if (typeof busyTimeoutMs !== "number" || !Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    problems.push("busyTimeoutMs must be a non-negative integer");
  }
  if (integrityCheck !== "quick" && integrityCheck !== "none") problems.push('integrityCheck must be "quick" or "none"');
  if (problems.length > 0) {
    throw new YokeError("CONFIG_INVALID", `createSqliteJournal: ${problems.join("; ")}`, { details: { problems } });
  }
}

function closeQuietly(db: SqliteDatabaseLike): void {
  try {
    if (db.open) db.close();
  } catch {
    // The open failure is the error worth reporting.
  }
}
