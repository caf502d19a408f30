import { existsSync } from "node:fs";
import {
  GENESIS_HASH,
  YokeError,
  type AppendOptions,
  type AppendResult,
  type Clock,
  type EventDraft,
  type JournalEvent,
  type JournalHead,
  type JournalV1,
  type ReadOptions,
  type RunLeasesV1,
  type RunScope,
  type RunSummary,
  type VerifyResult,
} from "@yoke/protocol";
import { Kysely, SqliteDialect } from "kysely";
import { EMPTY_HEAD, chainError, conflictError, sealDrafts } from "./chain.js";
import { checkEventSizes, maxEventBytesOf } from "./event-size.js";
import { ChainReport, keyRingOf, type ChainKey, type JournalKeyRing } from "./keyed-chain.js";
import { DEFAULT_BUSY_TIMEOUT_MS, applyPragmas, openDatabaseFile, quickCheck, type SqliteDatabaseLike, type SqliteDurability } from "./sqlite-database.js";
import { isUniqueViolation, toJournalError } from "./sqlite-errors.js";
import { EventStatements } from "./sqlite-event-statements.js";
import { HeadCache } from "./sqlite-head-cache.js";
import { LIST_RUNS_PAGE_SIZE, listRunsPage } from "./sqlite-list-runs.js";
import type { JournalTables } from "./sqlite-migrations.js";
import { ensureSchema } from "./sqlite-schema.js";
import { checkAppendLease } from "./lease-rules.js";
import { LeaseStatements, createSqliteRunLeases, storeTime } from "./sqlite-leases.js";
import { closeQuietly, createAtomically, emptyFile } from "./sqlite-journal-file.js";
import { LONE_SURROGATE, checkOptions, storable, type SqliteJournalOptions } from "./sqlite-journal-options.js";
import { sequenceOption } from "./read-range.js";
import { openWitnessGuard, refuseEmptyOverWitness, unwitnessedError, witnessFailureError, type WitnessGuard } from "./sqlite-witness-guard.js";

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
  /** Run leases. On a read-only journal, acquire, renew and release are JOURNAL_READ_ONLY and `current` answers null. */
  readonly leases: RunLeasesV1;
  readonly readOnly: boolean;
  /** The head witness file in use, or null (in-memory database, `headWitness: "none"`, or a read-only journal that has none). */
  readonly headWitnessPath: string | null;
}

export type { SqliteJournalOptions } from "./sqlite-journal-options.js";

const END_OF_RUN = Number.MAX_SAFE_INTEGER;

/** A run head the append transaction could not check yet: its key is not in the ring. */
type UnverifiedHead = Extract<VerifyResult, { ok: false }> & { readonly missingKeyId: string };

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
  const readOnly = options.readOnly ?? false;
  const witnessMode = options.headWitness ?? "file";
  checkOptions(options, durability, busyTimeoutMs, integrityCheck, witnessMode);
  const keys = keyRingOf(options);
  const maxEventBytes = maxEventBytesOf(options);
  const owned = options.database === undefined;
  const filename = options.filename;
  // `existed` is true for a caller's database and for ":memory:", so the `filename !== undefined` and
  // `!== ":memory:"` tests joined to `!existed` below are redundant (Stryker's `true` for them survives,
  // equivalent). The `!== ":memory:"` joined to `existed && emptyFile` only stops a look at a file named
  // ":memory:" in the working directory; createAtomically leaves an existing file alone (EEXIST), so
  // `||` for its guard's first `&&` is equivalent too, one wasted temp database slower.
  const existed = filename === undefined || filename === ":memory:" || existsSync(filename);
  if (filename !== undefined && !existed && (options.create === false || readOnly)) {
    throw new YokeError("JOURNAL_NOT_INITIALIZED", `${filename} does not exist${readOnly ? " (opened read-only)" : " and create is false"}`, {
      details: { filename },
    });
  }
  if (filename !== undefined && filename !== ":memory:" && existed && emptyFile(filename)) {
    // Refused before SQLite opens it: setting WAL mode alone would write a header into it.
    if (witnessMode === "file") refuseEmptyOverWitness(`${filename}-head`);
    if (options.create !== true) {
      throw new YokeError("JOURNAL_NOT_INITIALIZED", `${filename} is empty; pass create: true to write a new journal into it`, { details: { filename } });
    }
  }
  if (filename !== undefined && filename !== ":memory:" && !existed) await createAtomically(filename, busyTimeoutMs);
  const db = options.database ?? (await openDatabaseFile(filename as string, busyTimeoutMs, readOnly));
  let witness: WitnessGuard | null = null;
  try {
    const mode = applyPragmas(db, durability, busyTimeoutMs, readOnly);
    if (integrityCheck === "quick") quickCheck(db);
    // A read-only open may read an in-memory snapshot of the file (see openDatabaseFile): it still has the file's witness.
    const path = filename ?? db.name;
    // better-sqlite3 reports both ":memory:" and "" (an anonymous temporary database) as `memory`:
    // for it the name tests change nothing; they guard other SqliteDatabaseLike implementations.
    // For the same reason the first test as `false` is equivalent with better-sqlite3: a Database
    // opened by file name has that name and `memory` false, one opened as ":memory:" has `memory` true.
    const onDisk = filename !== undefined ? filename !== ":memory:" : !db.memory && db.name !== "" && db.name !== ":memory:";
    const witnessPath = onDisk && witnessMode !== "none" ? `${path}-head` : null;
    // A new file was created complete (createAtomically): an empty one here was not made by this call.
    // ":memory:" is a new database at every open, as a file that does not exist yet is: a journal by default.
    const allowInit = options.create ?? (!owned || filename === ":memory:");
    const kysely = new Kysely<JournalTables>({ dialect: new SqliteDialect({ database: db }) });
    await ensureSchema(kysely, db, {
      readOnly,
      allowInit,
      beforeInit: () => {
        if (witnessPath !== null && witnessMode !== "adopt") refuseEmptyOverWitness(witnessPath);
      },
      describe: filename ?? db.name,
    });
    const statements = new EventStatements(db);
    if (witnessPath !== null) {
      witness = openWitnessGuard(db, statements, witnessPath, { mode: witnessMode === "adopt" ? "adopt" : "file", readOnly });
    }
    return buildJournal(db, kysely, statements, {
      durability,
      // A writable on-disk journal is always in WAL mode (applyPragmas sets it): the two differ
      // only for a read-only journal over a rollback-mode file, which appends nothing.
      durable: mode === "wal" && onDisk,
      readOnly,
      witness,
      storeClock: options.storeClock,
      keys,
      maxEventBytes,
    });
  } catch (error) {
    witness?.close();
    // A caller's database stays open (tested); leaving an owned one open would only leak a handle.
    if (owned) closeQuietly(db);
    // `filename !== undefined` as `true` is equivalent unless the working directory holds a file named
    // "undefined-head": for a caller's database it would only look for one.
    if (filename !== undefined && YokeError.hasCode(error, "JOURNAL_NOT_INITIALIZED") && witnessMode !== "none" && witnessMode !== "adopt") {
      refuseEmptyOverWitness(`${filename}-head`);
    }
    throw toJournalError(error, "open the journal");
  }
}

interface BuildOptions {
  readonly durability: SqliteDurability;
  readonly durable: boolean;
  readonly readOnly: boolean;
  readonly witness: WitnessGuard | null;
  readonly storeClock: Clock | undefined;
  readonly keys: JournalKeyRing | undefined;
  readonly maxEventBytes: number;
}

function buildJournal(db: SqliteDatabaseLike, kysely: Kysely<JournalTables>, statements: EventStatements, options: BuildOptions): SqliteJournal {
  const { durability, readOnly, witness, storeClock, keys } = options;
  const leaseStatements = readOnly ? undefined : new LeaseStatements(db);
  const heads = new HeadCache();
  const { maxEventBytes } = options;
  // Whether the witness line is fsynced: only a power loss tells the two apart.
  const syncWitness = durability === "full";
  let closed = false;
  // The messages of the refusals below (and the operation names given to toJournalError) are for
  // people: callers and tests go by the code and details. The toJournalError paths of head,
  // verify's witness refresh and close need the driver to fail after open; no test provokes it.
  // checkWitness's operation name is never read in a test either: the witness's own failures are
  // YokeErrors (JOURNAL_WITNESS_INVALID, JOURNAL_TRUNCATED), which toJournalError passes through
  // unchanged; only an unexpected file-system error would carry it.
  const assertOpen = () => {
    if (closed) throw new YokeError("JOURNAL_CLOSED", "the SQLite journal is closed");
  };
  const assertWritable = (operation: string): LeaseStatements => {
    assertOpen();
    if (leaseStatements === undefined) throw new YokeError("JOURNAL_READ_ONLY", `the SQLite journal was opened read-only; cannot ${operation}`);
    return leaseStatements;
  };
  const appendTransaction = db.transaction(
    (scope: RunScope, expectedSeq: number, drafts: readonly EventDraft[], appendOptions: AppendOptions | undefined, key: ChainKey | undefined) => {
      const table = leaseStatements as LeaseStatements;
      checkAppendLease(scope, table.get(scope), appendOptions, () => storeTime(table, storeClock));
      const cached = heads.get(scope);
      // A head this journal sealed itself is trusted; any other is checked below before it is extended.
      const own = cached?.length === expectedSeq;
      const head = own ? cached : (statements.head(scope) ?? EMPTY_HEAD);
      const witnessed = witness?.witness.expected(scope);
      if (witnessed !== undefined && head.length < witnessed.length) {
        throw witnessFailureError(
          scope,
          {
            ok: false,
            firstBadSeq: head.length,
            reason: "truncated",
            message: `the run has ${head.length} events but its head witness says ${witnessed.length} were acknowledged`,
          },
          witness!.witness.path,
        );
      }
      if (expectedSeq !== head.length) throw conflictError(scope, expectedSeq, head.length);
      if (key !== undefined && !own && head.length > 0) {
        // A keyed journal never extends a head it cannot verify: one sealed with other key material
        // under the same key id would leave the run unreadable to the real key holder.
        const failure = statements.checkAt(scope, head.length - 1, keys as JournalKeyRing);
        if (failure?.missingKeyId !== undefined) return failure as UnverifiedHead;
        if (failure !== null) throw chainError(scope, failure);
      }
      const sealed = sealDrafts(scope, head, drafts, key);
      checkEventSizes(scope, sealed, maxEventBytes);
      const events: JournalEvent[] = new Array(sealed.length); // preallocated; a growing array ends the same
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
    },
  );
  // The witness line is written after the commit (a crash before it leaves the witness one
  // append behind, never ahead) and under the write lock again, so no compaction races it.
  const witnessTransaction = db.transaction((scope: RunScope, head: JournalHead) => witness!.record(scope, head, syncWitness));
  const leases = createSqliteRunLeases(db, leaseStatements, storeClock, { assertOpen, assertWritable, storable });
  const checkWitness = (scope: RunScope) => {
    if (witness === null) return;
    try {
      witness.witness.refresh();
      witness.check(scope);
    } catch (error) {
      throw toJournalError(error, "check the head witness");
    }
  };

  return {
    specificationVersion: "v1",
    capabilities: { durable: options.durable, multiProcess: options.durable },
    durability,
    leases,
    readOnly,
    headWitnessPath: witness?.witness.path ?? null,

    async append(scope, expectedSeq, drafts, appendOptions?: AppendOptions): Promise<AppendResult> {
      assertWritable("append");
      if (!storable(scope)) {
        throw new YokeError("JOURNAL_INVALID_APPEND", "tenantId and runId must be well-formed Unicode strings", {
          details: { runId: String(scope.runId) },
        });
      }
      const key = keys === undefined ? undefined : await keys.sealingKey(scope.tenantId);
      // Only the await above can let a close in: without a key ring there is none, and the
      // assertOpen of assertWritable, in the same synchronous step, already ran (so `true` here is equivalent).
      if (key !== undefined) assertOpen();
      let events: JournalEvent[];
      try {
        let outcome = appendTransaction.immediate(scope, expectedSeq, drafts, appendOptions, key) as JournalEvent[] | UnverifiedHead;
        // The head names a key the ring has not resolved yet: ask the provider (outside the write
        // lock), then try once more; a head still unverifiable is refused.
        if (!Array.isArray(outcome)) {
          const asked = await (keys as JournalKeyRing).lookup(scope.tenantId, outcome.missingKeyId);
          assertOpen();
          if (asked === undefined) throw chainError(scope, outcome);
          outcome = appendTransaction.immediate(scope, expectedSeq, drafts, appendOptions, key) as JournalEvent[] | UnverifiedHead;
          if (!Array.isArray(outcome)) throw chainError(scope, outcome);
        }
        events = outcome;
      } catch (error) {
        // The head cache only saves a query: an entry is used only at its own length, and a stale one
        // then meets the stored row of that seq, a conflict either way. Forgetting (and setting,
        // below) keep it fresh; neither changes an outcome.
        heads.forget(scope);
        if (!isUniqueViolation(error)) throw toJournalError(error, "append");
        // Another connection stored this sequence number since this journal last saw the run. The
        // length is for the conflict's details; should even the head read fail (no test makes it),
        // expectedSeq + 1 is the least the run now has.
        let actual: number;
        try {
          actual = statements.head(scope)?.length ?? expectedSeq + 1;
        } catch {
          actual = expectedSeq + 1;
        }
        throw conflictError(scope, expectedSeq, actual);
      }
      const last = events.at(-1) as JournalEvent;
      const head = { length: last.seq + 1, hash: last.hash };
      heads.set(scope, head);
      if (witness !== null) {
        try {
          witnessTransaction.immediate(scope, head);
        } catch (error) {
          // The events are durable; only the witness line is missing, which leaves it behind, never wrong.
          // A witness deleted or replaced after open is JOURNAL_WITNESS_INVALID; a write the file system
          // refused (a full disk) is JOURNAL_UNAVAILABLE saying the events are committed (both tested).
          throw unwitnessedError(scope, last.seq, toJournalError(error, "record the head witness"));
        }
      }
      return { lastSeq: last.seq, headHash: last.hash, events };
    },

    async *read(scope, readOptions: ReadOptions = {}): AsyncGenerator<JournalEvent> {
      assertOpen();
      const fromSeq = sequenceOption(readOptions.fromSeq, 0, "fromSeq");
      const toSeq = sequenceOption(readOptions.toSeq, END_OF_RUN, "toSeq");
      if (!storable(scope)) return;
      // A read to the end must not end early: events the witness says were acknowledged are missing.
      if (toSeq === END_OF_RUN) checkWitness(scope);
      for (const step of statements.walk(scope, fromSeq, toSeq, assertOpen, keys)) {
        if (step.pending !== undefined) {
          await step.pending;
          continue;
        }
        if (step.failure) throw chainError(scope, step.failure);
        yield step.event;
      }
    },

    async head(scope) {
      assertOpen();
      if (!storable(scope)) return null;
      checkWitness(scope);
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
      const report = new ChainReport(keys !== undefined);
      if (!storable(scope)) return report.result(events, headHash);
      try {
        for (const step of statements.walk(scope, 0, END_OF_RUN, assertOpen, keys)) {
          if (step.pending !== undefined) {
            await step.pending;
            continue;
          }
          if (step.failure) return step.failure;
          events++;
          headHash = step.event.hash;
          report.note(headHash);
        }
      } catch (error) {
        // A damaged page is bad data like any other: name where the readable chain ends.
        if (!YokeError.hasCode(error, "JOURNAL_CORRUPT")) throw error;
        return { ok: false, firstBadSeq: events, reason: "malformed", message: error.message };
      }
      if (witness !== null) {
        try {
          witness.witness.refresh();
        } catch (error) {
          throw toJournalError(error, "check the head witness");
        }
        const failure = witness.failure(scope);
        if (failure !== null) return failure;
      }
      return report.result(events, headHash);
    },

    async *listRuns(tenantId): AsyncGenerator<RunSummary> {
      assertOpen();
      // Only the tenant id is in question here: any well-formed run id (Stryker's "Stryker was here!") is equivalent.
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
      if (closed) return; // a second destroy would be harmless too (the contract closes twice)
      closed = true;
      witness?.close();
      try {
        await kysely.destroy();
      } catch (error) {
        throw toJournalError(error, "close");
      }
    },
  };
}
