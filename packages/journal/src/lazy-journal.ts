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
 * A `JournalV1` that opens its store on first use. Every member forwards to the opened
 * store, `append`'s options and `leases` included; an open that fails rejects that call (and
 * later ones, unless the failure was retryable) with a typed YokeError; `close()` before any
 * use opens nothing.
 */
function lazyJournal(open: () => Promise<JournalV1>, shape: LazyJournalShape): JournalV1 {
  let opening: Promise<JournalV1> | undefined;
  let closed = false;

  const opened = (): Promise<JournalV1> => {
    if (closed) return Promise.reject(new YokeError("JOURNAL_CLOSED", `${shape.description} was closed`));
    opening ??= open().then(
      (journal) => journal,
      (error: unknown) => {
        const typed = YokeError.isInstance(error) ? error : new YokeError("JOURNAL_UNAVAILABLE", `could not open ${shape.description}`, { cause: error });
        if (typed.retryable) opening = undefined;
        throw typed;
      },
    );
    return opening;
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
        journal = await pending;
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
export function createLazySqliteJournal(options: SqliteJournalOptions & { readonly filename: string }): JournalV1 {
  if (typeof options?.filename !== "string" || options.filename === "") {
    throw new YokeError("CONFIG_INVALID", "a lazily opened SQLite journal needs a filename", { details: { option: "filename" } });
  }
  const onDisk = options.filename !== ":memory:";
  return lazyJournal(() => createSqliteJournal(options), {
    capabilities: { durable: onDisk, multiProcess: onDisk },
    leases: true,
    description: `the SQLite journal at ${options.filename}`,
  });
}
