// A third-party store, written against the public entry only: a minimal in-memory driver
// (both as a synchronous driver and as an asynchronous one, the way a network store such as
// PostgreSQL answers) turned into a journal by `createJournal`. It passing the whole journal
// and lease contracts is what shows the driver seam is enough to build a store on.
import { YokeError, systemClock, type Clock, type JournalEvent, type JournalHead, type RunLease, type RunScope, type RunSummary } from "@yoke/protocol";
import { runStartedDraft } from "@yoke/testkit";
import { journalContractTests, runLeaseContractTests } from "@yoke/testkit/contracts";
import { describe, expect, it } from "vitest";
import {
  createJournal,
  type Awaitable,
  type JournalDriver,
  type JournalDriverTransaction,
  type SealedEvent,
  type StoredEvent,
  type StoredLease,
} from "./index.js";

interface Row {
  readonly event: JournalEvent;
  readonly canonicalData: string;
}

/** What a store keeps: shared by every driver (every "connection") opened on it. */
interface Storage {
  readonly runs: Map<string, Row[]>;
  readonly leases: Map<string, StoredLease>;
  lastToken: number;
  /** Seqs whose insert the storage refuses (the contract's `refuseWriteAt`). */
  readonly refused: Set<string>;
  /** The one writer at a time: a chain of write transactions. */
  queue: Promise<unknown>;
  /** The head witness: kept apart from the runs, so a loss of rows shows against it. */
  readonly witnessed: Map<string, JournalHead>;
}

class DuplicateSeq extends Error {}

const runKey = (scope: RunScope) => JSON.stringify([scope.tenantId, scope.runId]);

function newStorage(): Storage {
  return { runs: new Map(), leases: new Map(), lastToken: 0, refused: new Set(), queue: Promise.resolve(), witnessed: new Map() };
}

/**
 * A driver over `storage`. `async`: every method answers with a promise (and a write waits
 * for the writer before it); otherwise every method answers at once.
 */
function testDriver(storage: Storage, options: { readonly async: boolean; readonly clock: Clock; readonly witness?: boolean }): JournalDriver {
  const answer = <T>(value: T): Awaitable<T> => (options.async ? Promise.resolve(value) : value);
  const page = (scope: RunScope, fromSeq: number, toSeq: number, limit: number): StoredEvent[] =>
    (storage.runs.get(runKey(scope)) ?? [])
      .filter((row) => row.event.seq >= fromSeq && row.event.seq < toSeq)
      .slice(0, limit)
      // Data comes back parsed from the canonical JSON it was stored as, as a database gives it back.
      .map((row) => ({ ...row.event, data: JSON.parse(row.canonicalData) }));
  const head = (scope: RunScope) => {
    const last = storage.runs.get(runKey(scope))?.at(-1);
    return last === undefined ? null : { length: last.event.seq + 1, hash: last.event.hash };
  };

  const transaction = () => {
    // Writes are staged and applied on commit: a transaction that throws leaves nothing.
    const inserted: SealedEvent[] = [];
    const leases = new Map<string, StoredLease>();
    let lastToken: number | undefined;
    const tx: JournalDriverTransaction = {
      head: (scope) => answer(head(scope)),
      readPage: (scope, fromSeq, toSeq, limit) => answer(page(scope, fromSeq, toSeq, limit)),
      insertEvents: (events) => {
        for (const sealed of events) {
          const { tenantId, runId, seq } = sealed.event;
          if (storage.refused.has(JSON.stringify([tenantId, runId, seq]))) throw new Error(`storage refused seq ${seq}`);
          if ((storage.runs.get(runKey(sealed.event))?.length ?? 0) > seq) throw new DuplicateSeq(`seq ${seq} is stored`);
          inserted.push(sealed);
        }
        return answer(undefined);
      },
      lease: (scope) => answer(leases.get(runKey(scope)) ?? storage.leases.get(runKey(scope)) ?? null),
      putLease: (lease: RunLease, released) => answer(void leases.set(runKey(lease), { lease, released })),
      lastToken: () => answer(lastToken ?? storage.lastToken),
      issueToken: (token) => answer(void (lastToken = token)),
      now: () => answer(options.clock.now()),
    };
    const commit = () => {
      for (const { event, canonicalData } of inserted) {
        const rows = storage.runs.get(runKey(event)) ?? [];
        // A copy: the caller keeps the sealed event the append returns.
        rows.push({ event: { ...event }, canonicalData });
        storage.runs.set(runKey(event), rows);
      }
      for (const [key, stored] of leases) storage.leases.set(key, stored);
      if (lastToken !== undefined) storage.lastToken = lastToken;
    };
    return { tx, commit };
  };

  return {
    label: "test journal",
    capabilities: { durable: false, multiProcess: false },
    readOnly: false,
    witness:
      options.witness === true
        ? {
            location: "memory:witness",
            expected: (scope) => answer(storage.witnessed.get(runKey(scope))),
            refresh: () => answer(undefined),
            record: (scope, head) => answer(void storage.witnessed.set(runKey(scope), head)),
            close: () => answer(undefined),
          }
        : null,
    write<T>(work: (tx: JournalDriverTransaction) => Awaitable<T>): Awaitable<T> {
      if (!options.async) {
        const { tx, commit } = transaction();
        const outcome = work(tx);
        if (outcome instanceof Promise) throw new Error("a synchronous driver's transaction cannot wait");
        commit();
        return outcome as T;
      }
      const run = storage.queue.then(async () => {
        const { tx, commit } = transaction();
        const outcome = await work(tx);
        commit();
        return outcome;
      });
      storage.queue = run.catch(() => undefined);
      return run;
    },
    head: (scope) => answer(head(scope)),
    hashAt: (scope, seq) => answer(storage.runs.get(runKey(scope))?.[seq]?.event.hash ?? null),
    hasEventFrom: (scope, seq) => answer((storage.runs.get(runKey(scope))?.length ?? 0) > seq),
    readPage: (scope, fromSeq, toSeq, limit) => answer(page(scope, fromSeq, toSeq, limit)),
    listRunsPage(tenantId, afterRunId, limit) {
      const summaries: RunSummary[] = [];
      for (const rows of storage.runs.values()) {
        const first = rows[0]!.event;
        const last = rows.at(-1)!.event;
        if (first.tenantId !== tenantId || (afterRunId !== null && first.runId <= afterRunId)) continue;
        summaries.push({ tenantId, runId: first.runId, length: last.seq + 1, firstAt: first.at, lastAt: last.at });
      }
      return answer(summaries.sort((a, b) => (a.runId < b.runId ? -1 : 1)).slice(0, limit));
    },
    currentLease: (scope) => answer(storage.leases.get(runKey(scope)) ?? null),
    isDuplicateEvent: (error) => error instanceof DuplicateSeq,
    toJournalError: (error, operation) =>
      YokeError.isInstance(error) ? error : new YokeError("INTERNAL", `test journal: ${operation} failed: ${String(error)}`, { cause: error }),
    close: () => answer(undefined),
  };
}

for (const mode of ["synchronous", "asynchronous"] as const) {
  const async = mode === "asynchronous";
  const contract = journalContractTests(`a third-party ${mode} driver`, () => {
    const storage = newStorage();
    return {
      journal: createJournal({ driver: testDriver(storage, { async, clock: systemClock() }) }),
      refuseWriteAt: (scope: RunScope, seq: number) => void storage.refused.add(JSON.stringify([scope.tenantId, scope.runId, seq])),
    };
  });
  const leases = runLeaseContractTests(`a third-party ${mode} driver`, (clock) => ({
    journal: createJournal({ driver: testDriver(newStorage(), { async, clock }) }),
  }));
  // A literal describe and it.for, so `vitest list` (a static read of this file) finds the suites.
  describe(`JournalV1 contract: a third-party ${mode} driver`, () => {
    it.for(contract.tests)("$title", (test) => test.run());
  });
  describe(`RunLeasesV1 contract: a third-party ${mode} driver`, () => {
    it.for(leases.tests)("$title", (test) => test.run());
  });

  describe(`createJournal over a ${mode} driver`, () => {
    it("turns another writer's insert of the same seq into JOURNAL_CONFLICT with the run's length", async () => {
      const storage = newStorage();
      const scope = { tenantId: "tenant_a", runId: "run_1" };
      const first = createJournal({ driver: testDriver(storage, { async, clock: systemClock() }) });
      const second = createJournal({ driver: testDriver(storage, { async, clock: systemClock() }) });
      await first.append(scope, 0, [runStartedDraft()]);
      // The first journal's cached head is stale once the second has appended: the driver's duplicate decides.
      await second.append(scope, 1, [{ type: "test.noted", at: 1, data: {} }]);
      await expect(first.append(scope, 1, [{ type: "test.noted", at: 2, data: {} }])).rejects.toMatchObject({
        code: "JOURNAL_CONFLICT",
        details: { expectedSeq: 1, actualSeq: 2 },
      });
      expect(await first.verify(scope)).toMatchObject({ ok: true, events: 2 });
    });

    it("checks runs against the driver's head witness: rows lost after their append are JOURNAL_TRUNCATED", async () => {
      const storage = newStorage();
      const scope = { tenantId: "tenant_a", runId: "run_1" };
      const journal = createJournal({ driver: testDriver(storage, { async, clock: systemClock(), witness: true }) });
      await journal.append(scope, 0, [runStartedDraft(), { type: "test.noted", at: 1, data: {} }, { type: "test.noted", at: 2, data: {} }]);
      expect(storage.witnessed.get(runKey(scope))).toEqual(await journal.head(scope));
      storage.runs.get(runKey(scope))!.length = 1;
      const truncated = { code: "JOURNAL_TRUNCATED", details: { seq: 1, reason: "truncated", witness: "memory:witness" } };
      await expect(journal.head(scope)).rejects.toMatchObject(truncated);
      await expect(journal.append(scope, 1, [{ type: "test.noted", at: 3, data: {} }])).rejects.toMatchObject(truncated);
      expect(await journal.verify(scope)).toMatchObject({ ok: false, firstBadSeq: 1, reason: "truncated" });
      // A read that stops short of the end is not a claim about the run's length: it is answered.
      const early: JournalEvent[] = [];
      for await (const event of journal.read(scope, { toSeq: 1 })) early.push(event);
      expect(early.map((event) => event.seq)).toEqual([0]);
    });

    it("refuses a missing driver with CONFIG_INVALID", () => {
      expect(() => createJournal({} as never)).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    });
  });
}
