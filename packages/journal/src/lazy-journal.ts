import {
  YokeError,
  type AppendOptions,
  type AppendResult,
  type EventDraft,
  type JournalCapabilities,
  type JournalEvent,
  type JournalHead,
  type JournalV1,
  type LeaseRequest,
  type ReadOptions,
  type RunLease,
  type RunLeasesV1,
  type RunScope,
  type RunSummary,
  type VerifyResult,
} from "@yoke/protocol";
import { createSqliteJournal, type SqliteJournalOptions } from "./sqlite-journal.js";

/** What a lazy journal must know before its store is open: everything `JournalV1` exposes synchronously. */
interface LazyJournalShape {
  readonly capabilities: JournalCapabilities;
  /** Whether the opened store will have `leases` (a lazy `leases` is exposed only then). */
  readonly leases: boolean;
  /** Names the store in errors ("the SQLite journal at yoke.db"). */
  readonly description: string;
}

/**
 * A SQLite journal opened on first use (see `createLazySqliteJournal`), which can also be
 * opened on purpose, and told then whether it may create a missing file.
 */
export interface LazySqliteJournal extends JournalV1 {
  /**
   * Opens the store now (once; later calls wait for the same open). `createIfMissing: true`
   * creates the file when there is none, even when the journal was built with
   * `create: false`, for a caller that knows it starts something new; an existing empty file
   * is still refused. Rejects with the open's typed error.
   */
  open(options?: { readonly createIfMissing?: boolean }): Promise<void>;
}

/**
 * A `JournalV1` that opens its store on first use. Every member forwards to the opened
 * store, `append`'s options and `leases` included; an open that fails rejects that call (and
 * later ones, unless the failure was retryable, or JOURNAL_NOT_INITIALIZED: a journal someone
 * creates later opens then) with a typed YokeError; `close()` before any use opens nothing.
 * `open(true)` may create the store; a first use does what the options say.
 */
function lazyJournal(open: (mayCreate: boolean) => Promise<JournalV1>, shape: LazyJournalShape): JournalV1 & { open(mayCreate: boolean): Promise<JournalV1> } {
  let opening: { readonly journal: Promise<JournalV1>; readonly mayCreate: boolean } | undefined;
  let closed = false;

  const start = (mayCreate: boolean): Promise<JournalV1> => {
    const attempt = {
      mayCreate,
      journal: open(mayCreate).then(
        (journal) => journal,
        (error: unknown) => {
          const typed = YokeError.isInstance(error) ? error : new YokeError("JOURNAL_UNAVAILABLE", `could not open ${shape.description}`, { cause: error });
          if ((typed.retryable || typed.code === "JOURNAL_NOT_INITIALIZED") && opening === attempt) opening = undefined;
          throw typed;
        },
      ),
    };
    opening = attempt;
    return attempt.journal;
  };

  const opened = (mayCreate = false): Promise<JournalV1> => {
    if (closed) return Promise.reject(new YokeError("JOURNAL_CLOSED", `${shape.description} was closed`));
    const current = opening;
    if (current === undefined) return start(mayCreate);
    if (!mayCreate || current.mayCreate) return current.journal;
    // An open that may not create is under way: should it find no journal, open again, creating one.
    return current.journal.catch((error: unknown) => {
      if (!YokeError.hasCode(error, "JOURNAL_NOT_INITIALIZED")) throw error;
      return opened(true);
    });
  };

  const leasesOf = async (): Promise<RunLeasesV1> => {
    const journal = await opened();
    if (journal.leases === undefined) throw new YokeError("INTERNAL", `${shape.description} opened without the leases it was declared with`);
    return journal.leases;
  };

  const leases: RunLeasesV1 = {
    acquire: async (scope: RunScope, request: LeaseRequest): Promise<RunLease> => (await leasesOf()).acquire(scope, request),
    renew: async (lease: RunLease, ttlMs: number): Promise<RunLease> => (await leasesOf()).renew(lease, ttlMs),
    release: async (lease: RunLease): Promise<void> => (await leasesOf()).release(lease),
    current: async (scope: RunScope): Promise<RunLease | null> => (await leasesOf()).current(scope),
  };

  return {
    specificationVersion: "v1",
    capabilities: shape.capabilities,
    ...(shape.leases ? { leases } : {}),
    open: opened,
    async append(scope: RunScope, expectedSeq: number, drafts: readonly EventDraft[], options?: AppendOptions): Promise<AppendResult> {
      return (await opened()).append(scope, expectedSeq, drafts, options);
    },
    async *read(scope: RunScope, options?: ReadOptions): AsyncIterable<JournalEvent> {
      yield* (await opened()).read(scope, options);
    },
    async head(scope: RunScope): Promise<JournalHead | null> {
      return (await opened()).head(scope);
    },
    async verify(scope: RunScope): Promise<VerifyResult> {
      return (await opened()).verify(scope);
    },
    async *listRuns(tenantId: string): AsyncIterable<RunSummary> {
      yield* (await opened()).listRuns(tenantId);
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      const pending = opening;
      if (pending === undefined) return;
      let journal: JournalV1;
      try {
        journal = await pending.journal;
      } catch {
        return; // never opened: nothing to close
      }
      await journal.close();
    },
  };
}

/**
 * A SQLite journal at `options.filename` that is opened on first use, for code that must be
 * synchronous (`createHarness({ journal: "./yoke.db" })` is built on it). It is a complete
 * `JournalV1`: every call, `leases` and append options included, goes to the journal
 * `createSqliteJournal(options)` opens. An open that fails (no better-sqlite3 installed:
 * DEPENDENCY_MISSING; a damaged or foreign file: JOURNAL_CORRUPT, …) rejects the first call
 * that needed the store with that typed error; `close()` before any use opens nothing.
 *
 * @example
 * ```ts
 * const journal = createLazySqliteJournal({ filename: "yoke.db" }); // nothing opened yet
 * const head = await journal.head({ tenantId: "default", runId: "run_1" }); // opens yoke.db
 * await journal.close();
 * ```
 */
export function createLazySqliteJournal(options: SqliteJournalOptions & { readonly filename: string }): LazySqliteJournal {
  if (typeof options?.filename !== "string" || options.filename === "") {
    throw new YokeError("CONFIG_INVALID", "a lazily opened SQLite journal needs a filename", { details: { option: "filename" } });
  }
  const onDisk = options.filename !== ":memory:";
  // `createIfMissing` lifts `create: false` to the default (a missing file is created, an empty one refused).
  const { create: _create, ...creating } = options;
  const journal = lazyJournal((mayCreate) => createSqliteJournal(mayCreate && options.create === false ? creating : options), {
    capabilities: { durable: onDisk, multiProcess: onDisk },
    leases: true,
    description: `the SQLite journal at ${options.filename}`,
  });
  return { ...journal, open: async (openOptions) => void (await journal.open(openOptions?.createIfMissing === true)) };
}
