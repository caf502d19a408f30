import type { RunScope } from "@yoke/protocol";
import { eventDraft, rejectionOf, runStartedDraft } from "@yoke/testkit";
import { journalContractTests } from "@yoke/testkit/contracts";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { refuseWriteAtFile } from "./__fixtures__/refuse-write.js";
import { tempDirectory } from "./__fixtures__/temp-files.js";
import { createSqliteJournal, type SqliteJournal } from "./sqlite-journal.js";

const contract = journalContractTests("sqlite", async () => {
  const directory = tempDirectory();
  const journal = await createSqliteJournal({ filename: directory.file("journal.db") });
  return { journal, cleanup: () => directory.remove(), refuseWriteAt: refuseWriteAtFile(directory.file("journal.db")) };
});
// A literal describe and it.for, so `vitest list` (a static read of this file) finds the suite.
describe("JournalV1 contract: sqlite", () => {
  it.for(contract.tests)("$title", (test) => test.run());
});

const scope: RunScope = { tenantId: "tenant_a", runId: "run_1" };
const notes = (from: number, count: number) => Array.from({ length: count }, (_, index) => eventDraft("test.noted", { index: from + index }));

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const rejection = rejectionOf;

describe("sqlite journal", () => {
  let directory: ReturnType<typeof tempDirectory>;
  let filename: string;
  const opened: SqliteJournal[] = [];
  const open = async (options: { synchronous?: "full" | "normal"; busyTimeoutMs?: number } = {}) => {
    const journal = await createSqliteJournal({ filename, ...options });
    opened.push(journal);
    return journal;
  };

  beforeEach(() => {
    directory = tempDirectory();
    filename = directory.file("journal.db");
  });
  afterEach(async () => {
    for (const journal of opened.splice(0)) await journal.close();
    directory.remove();
  });

  it("keeps its events across close and reopen", async () => {
    const first = await open();
    await first.append(scope, 0, [runStartedDraft(), ...notes(1, 2)]);
    const before = await collect(first.read(scope));
    await first.close();
    const second = await open();
    expect(await collect(second.read(scope))).toEqual(before);
    expect(await second.verify(scope)).toMatchObject({ ok: true, events: 3 });
    const next = await second.append(scope, 3, notes(3, 1));
    expect(next.events[0]?.prevHash).toBe(before.at(-1)?.hash);
  });

  it("is durable and multi-process on a file, with full synchronous by default", async () => {
    const journal = await open();
    expect(journal.capabilities).toEqual({ durable: true, multiProcess: true });
    expect(journal.durability).toBe("full");
    expect((await open({ synchronous: "normal" })).durability).toBe("normal");
  });

  it("lets two journals on one file race for a sequence number: one wins, each sees the other", async () => {
    const a = await open();
    const b = await open();
    await a.append(scope, 0, [runStartedDraft()]);
    for (let round = 1; round <= 20; round++) {
      // Alternate which journal writes first, so neither can rely on what it saw last.
      const writers = round % 2 === 0 ? [a, b, b] : [b, a, a];
      const outcomes = await Promise.allSettled(writers.map((writer, index) => writer.append(scope, round, [eventDraft("test.noted", { index, round })])));
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome.status === "rejected") expect(outcome.reason).toMatchObject({ code: "JOURNAL_CONFLICT" });
      }
    }
    expect(await a.head(scope)).toEqual(await b.head(scope));
    expect(await b.verify(scope)).toMatchObject({ ok: true, events: 21 });
  });

  it("sees what another connection stored, whether it holds the write lock or has committed", async () => {
    const journal = await open({ busyTimeoutMs: 0 });
    await journal.append(scope, 0, [runStartedDraft()]);
    const copyRow = (to: number) =>
      "INSERT INTO events SELECT tenant_id, run_id, " +
      String(to) +
      ", type, at, causation_id, data, prev_hash, hash, schema_version FROM events WHERE seq = 0";
    const other = new Database(filename);
    try {
      // Committed behind the journal's back: its cached head (length 1) is stale.
      other.prepare(copyRow(1)).run();
      const stale = await rejection(journal.append(scope, 1, notes(1, 1)));
      expect(stale.code).toBe("JOURNAL_CONFLICT");
      expect(stale.details).toMatchObject({ expectedSeq: 1, actualSeq: 2 });
      // Holding the write lock: the journal waits busyTimeoutMs (0 here), then gives up.
      other.exec("BEGIN IMMEDIATE");
      other.prepare(copyRow(2)).run();
      const busy = await rejection(journal.append(scope, 2, notes(2, 1)));
      expect(busy.code).toBe("JOURNAL_UNAVAILABLE");
      expect(busy.retryable).toBe(true);
      other.exec("COMMIT");
    } finally {
      other.close();
    }
    const conflict = await rejection(journal.append(scope, 2, notes(2, 1)));
    expect(conflict.details).toMatchObject({ expectedSeq: 2, actualSeq: 3 });
    expect(await journal.head(scope)).toMatchObject({ length: 3 });
  });

  it("turns a stale cached head into JOURNAL_CONFLICT through the primary key, then recovers", async () => {
    const a = await open();
    const b = await open();
    await a.append(scope, 0, [runStartedDraft()]);
    const fromB = await b.append(scope, 1, notes(1, 1));
    // A last saw the run at length 1; B has stored seq 1 since.
    const conflict = await rejection(a.append(scope, 1, notes(1, 1)));
    expect(conflict.code).toBe("JOURNAL_CONFLICT");
    expect(conflict.details).toMatchObject({ expectedSeq: 1, actualSeq: 2 });
    const next = await a.append(scope, 2, notes(2, 1));
    expect(next.events[0]?.prevHash).toBe(fromB.headHash);
    expect(await b.verify(scope)).toMatchObject({ ok: true, events: 3 });
  });

  it("accepts an open better-sqlite3 database and closes it with the journal", async () => {
    const database = new Database(filename);
    const journal = await createSqliteJournal({ database, synchronous: "normal" });
    await journal.append(scope, 0, [runStartedDraft()]);
    expect(database.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(database.pragma("synchronous", { simple: true })).toBe(1);
    await journal.close();
    expect(database.open).toBe(false);
  });

  it("is honest about an in-memory database: not durable", async () => {
    const journal = await createSqliteJournal({ database: new Database(":memory:") });
    opened.push(journal);
    expect(journal.capabilities).toEqual({ durable: false, multiProcess: false });
    await journal.append(scope, 0, [runStartedDraft()]);
    expect(await journal.verify(scope)).toMatchObject({ ok: true, events: 1 });
  });

  it("refuses invalid options with CONFIG_INVALID", async () => {
    for (const options of [{}, { filename, database: new Database(":memory:") }, { filename, synchronous: "off" }, { filename, busyTimeoutMs: -1 }]) {
      const error = await rejection(createSqliteJournal(options as never));
      expect(error.code).toBe("CONFIG_INVALID");
    }
  });

  it("refuses ids and causation ids it could not store exactly (lone surrogates)", async () => {
    const journal = await open();
    const bad = { tenantId: "tenant_a", runId: "run_\ud800" };
    expect((await rejection(journal.append(bad, 0, [runStartedDraft()]))).code).toBe("JOURNAL_INVALID_APPEND");
    expect((await rejection(journal.append(scope, 0, [runStartedDraft({ causationId: "x\udc00" })]))).code).toBe("JOURNAL_INVALID_APPEND");
    // What SQLite would have stored instead must stay another run.
    await journal.append({ tenantId: "tenant_a", runId: "run_\ufffd" }, 0, [runStartedDraft()]);
    expect(await journal.head(bad)).toBeNull();
    expect(await collect(journal.read(bad))).toEqual([]);
    expect(await collect(journal.listRuns("tenant_\udfff"))).toEqual([]);
  });

  it("stops a read in progress with JOURNAL_CLOSED when the journal closes", async () => {
    const journal = await open();
    await journal.append(scope, 0, [runStartedDraft(), ...notes(1, 599)]);
    const seen: number[] = [];
    const reading = (async () => {
      for await (const event of journal.read(scope)) {
        seen.push(event.seq);
        if (event.seq === 0) await journal.close();
      }
    })();
    expect((await rejection(reading)).code).toBe("JOURNAL_CLOSED");
    expect(seen.length).toBeLessThan(600);
  });

  it("lets other calls run between the pages of a read", async () => {
    const journal = await open();
    await journal.append(scope, 0, [runStartedDraft(), ...notes(1, 599)]);
    let length = 600;
    for await (const event of journal.read(scope, { toSeq: 600 })) {
      if (event.seq % 100 === 0) {
        await journal.append(scope, length, notes(length, 1));
        length++;
      }
    }
    expect(await journal.verify(scope)).toMatchObject({ ok: true, events: 606 });
  });

  it("refuses read ranges that are not non-negative integers", async () => {
    const journal = await open();
    expect((await rejection(collect(journal.read(scope, { fromSeq: -1 })))).code).toBe("CONFIG_INVALID");
    expect((await rejection(collect(journal.read(scope, { toSeq: 1.5 })))).code).toBe("CONFIG_INVALID");
  });
});
