import { GENESIS_HASH, YokeError, type JournalV1, type ReadOptions, type RunLeasesV1, type RunScope, type RunSummary, type VerifyResult } from "@yoke/protocol";
import { drive, isThenable, settle, type Awaitable, type Steps } from "./awaitable.js";
import { chainError } from "./chain.js";
import { walkChain } from "./chain-walk.js";
import { maxEventBytesOf, type EventSizeOptions } from "./event-size.js";
import { createAppend } from "./journal-append.js";
import type { JournalDriver, JournalDriverWitness } from "./journal-driver.js";
import { createJournalLeases } from "./journal-leases.js";
import { ChainReport, keyRingOf, type JournalKeyOptions, type JournalKeyRing } from "./keyed-chain.js";
import { sequenceOption } from "./read-range.js";
import { storable } from "./scope-text.js";
import { witnessFailure, witnessFailureError } from "./witness-rules.js";

/** Options of `createJournal`: the driver, and the semantics' own settings. */
export interface JournalOptions extends JournalKeyOptions, EventSizeOptions {
  /** The store's storage primitives (see `JournalDriver`). */
  readonly driver: JournalDriver;
}

/** A journal made of a driver and the shared semantics: `JournalV1` with run leases. */
export interface DriverJournal extends JournalV1 {
  /** Run leases. On a read-only store, acquire, renew and release are JOURNAL_READ_ONLY. */
  readonly leases: RunLeasesV1;
  readonly readOnly: boolean;
}

/** Runs per `listRuns` page asked of the driver. */
export const LIST_RUNS_PAGE_SIZE = 256;

const END_OF_RUN = Number.MAX_SAFE_INTEGER;

type VerifyFailure = Extract<VerifyResult, { ok: false }>;

/**
 * Turns a store's driver into a `JournalV1` with run leases: the semantics every store
 * shares (the hash chain and its verification, keyed chains, JOURNAL_CONFLICT, the lease
 * rules and fencing, the head witness, paging, the event size limit, the typed errors) over
 * the primitives the driver supplies. The SQLite journal is this over the SQLite driver; a
 * new store (PostgreSQL, a store of your own) writes a driver and calls this. Run
 * `describeJournalContract` and `describeRunLeaseContract` (`@yoke/testkit/contracts`)
 * against the result.
 *
 * @example
 * ```ts
 * import { createJournal } from "@yoke/journal";
 * const journal = createJournal({ driver: createMyDriver(connection), keys, maxEventBytes: 1 << 20 });
 * await journal.append({ tenantId: "tenant_a", runId: "run_1" }, 0, [runStartedDraft]);
 * ```
 */
export function createJournal(options: JournalOptions): DriverJournal {
  if (typeof options?.driver !== "object" || options.driver === null) {
    throw new YokeError("CONFIG_INVALID", "createJournal needs a driver (see JournalDriver)", { details: { option: "driver" } });
  }
  return journalOver(options.driver, keyRingOf(options), maxEventBytesOf(options));
}

/** `createJournal` with its options already checked (a store's own factory checks them before it opens anything). */
export function journalOver(driver: JournalDriver, keys: JournalKeyRing | undefined, maxEventBytes: number): DriverJournal {
  const { witness } = driver;
  let closed = false;
  // The messages of the refusals below (and the operation names given to toJournalError) are for
  // people: callers and tests go by the code and details. The toJournalError paths of head,
  // verify's witness refresh and close need the driver to fail after open; no test provokes it.
  // checkWitness's operation name is never read in a test either: the witness's own failures are
  // YokeErrors (JOURNAL_WITNESS_INVALID, JOURNAL_TRUNCATED), which toJournalError passes through
  // unchanged; only an unexpected file-system error would carry it.
  const assertOpen = () => {
    if (closed) throw new YokeError("JOURNAL_CLOSED", `the ${driver.label} is closed`);
  };
  const assertWritable = (operation: string) => {
    assertOpen();
    if (driver.readOnly) throw new YokeError("JOURNAL_READ_ONLY", `the ${driver.label} was opened read-only; cannot ${operation}`);
  };
  // Steps, not an async function: over a synchronous driver the check runs in the caller's own
  // synchronous step, as the read or head that asked for it does.
  function* witnessCheck(scope: RunScope): Steps<void> {
    const known = witness as JournalDriverWitness;
    yield* settle(known.refresh());
    const failure = yield* witnessFailure(driver, scope, yield* settle(known.expected(scope)));
    if (failure !== null) throw witnessFailureError(scope, failure, known.location);
  }
  const checkWitness = (scope: RunScope): Awaitable<void> => {
    if (witness === null) return;
    try {
      const checked = drive(witnessCheck(scope));
      return isThenable(checked)
        ? Promise.resolve(checked).catch((error: unknown) => Promise.reject(driver.toJournalError(error, "check the head witness")))
        : checked;
    } catch (error) {
      throw driver.toJournalError(error, "check the head witness");
    }
  };
  function* witnessVerdict(scope: RunScope): Steps<VerifyFailure | null> {
    const known = witness as JournalDriverWitness;
    try {
      yield* settle(known.refresh());
    } catch (error) {
      throw driver.toJournalError(error, "check the head witness");
    }
    return yield* witnessFailure(driver, scope, yield* settle(known.expected(scope)));
  }

  return {
    specificationVersion: "v1",
    capabilities: driver.capabilities,
    leases: createJournalLeases(driver, { assertOpen, assertWritable }),
    readOnly: driver.readOnly,
    append: createAppend({ driver, keys, maxEventBytes, assertOpen, assertWritable }),

    async *read(scope, readOptions: ReadOptions = {}) {
      assertOpen();
      const fromSeq = sequenceOption(readOptions.fromSeq, 0, "fromSeq");
      const toSeq = sequenceOption(readOptions.toSeq, END_OF_RUN, "toSeq");
      if (!storable(scope)) return;
      // A read to the end must not end early: events the witness says were acknowledged are missing.
      if (toSeq === END_OF_RUN) {
        const checked = checkWitness(scope);
        if (isThenable(checked)) await checked;
      }
      const steps = walkChain(driver, scope, fromSeq, toSeq, assertOpen, keys);
      let sent: unknown;
      for (let next = steps.next(); !next.done; next = steps.next(sent)) {
        const step = next.value;
        sent = step.pending === undefined ? undefined : await step.pending;
        if (step.pending !== undefined) continue;
        if (step.failure) throw chainError(scope, step.failure);
        yield step.event;
      }
    },

    async head(scope) {
      assertOpen();
      if (!storable(scope)) return null;
      const checked = checkWitness(scope);
      if (isThenable(checked)) await checked;
      try {
        const head = driver.head(scope);
        return isThenable(head) ? await head : head;
      } catch (error) {
        throw driver.toJournalError(error, "read the head");
      }
    },

    async verify(scope): Promise<VerifyResult> {
      assertOpen();
      let events = 0;
      let headHash = GENESIS_HASH;
      const report = new ChainReport(keys !== undefined);
      if (!storable(scope)) return report.result(events, headHash);
      try {
        const steps = walkChain(driver, scope, 0, END_OF_RUN, assertOpen, keys);
        let sent: unknown;
        for (let next = steps.next(); !next.done; next = steps.next(sent)) {
          const step = next.value;
          sent = step.pending === undefined ? undefined : await step.pending;
          if (step.pending !== undefined) continue;
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
        const verdict = drive(witnessVerdict(scope));
        const failure = isThenable(verdict) ? await verdict : verdict;
        if (failure !== null) return failure;
      }
      return report.result(events, headHash);
    },

    async *listRuns(tenantId): AsyncGenerator<RunSummary> {
      assertOpen();
      // Only the tenant id is in question here: any well-formed run id would do.
      if (!storable({ tenantId, runId: "" })) return;
      let after: string | null = null;
      for (;;) {
        assertOpen();
        const page: readonly RunSummary[] = await driver.listRunsPage(tenantId, after, LIST_RUNS_PAGE_SIZE);
        yield* page;
        if (page.length < LIST_RUNS_PAGE_SIZE) return;
        after = (page.at(-1) as RunSummary).runId;
      }
    },

    async close() {
      if (closed) return; // a second destroy would be harmless too (the contract closes twice)
      closed = true;
      if (witness !== null) {
        const witnessClosed = witness.close();
        if (isThenable(witnessClosed)) await witnessClosed;
      }
      try {
        await driver.close();
      } catch (error) {
        throw driver.toJournalError(error, "close");
      }
    },
  };
}
