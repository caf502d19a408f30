import type { RunScope } from "@yoke/protocol";
import { eventDraft, rejectionOf, runStartedDraft } from "@yoke/testkit";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { tempDirectoryPerTest } from "./__fixtures__/temp-files.js";
import { LIST_RUNS_PAGE_SIZE } from "./sqlite-list-runs.js";
import { createSqliteJournal, type SqliteJournal } from "./sqlite-journal.js";

const scope: RunScope = { tenantId: "tenant_a", runId: "run_1" };
const directory = tempDirectoryPerTest("yoke-refusals-");
const notes = (from: number, count: number) => Array.from({ length: count }, (_, index) => eventDraft("test.noted", { index: from + index }));

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function withJournal(test: (journal: SqliteJournal, filename: string) => Promise<void>): Promise<void> {
  const filename = directory.file("journal.db");
  const journal = await createSqliteJournal({ filename, synchronous: "normal" });
  try {
    await test(journal, filename);
  } finally {
    await journal.close();
  }
}

describe("sqlite journal: refusals carry their details", () => {
  it("ids or a causationId with a lone surrogate are JOURNAL_INVALID_APPEND naming the run or the event", async () => {
    await withJournal(async (journal) => {
      const badRun = await rejectionOf(journal.append({ tenantId: "tenant_a", runId: "run_\uD800" }, 0, [runStartedDraft()]));
      expect([badRun.code, badRun.details]).toEqual(["JOURNAL_INVALID_APPEND", { runId: "run_\uD800" }]);
      const badTenant = await rejectionOf(journal.append({ tenantId: "tenant_\uDC00", runId: "run_1" }, 0, [runStartedDraft()]));
      expect([badTenant.code, badTenant.details]).toEqual(["JOURNAL_INVALID_APPEND", { runId: "run_1" }]);
      await journal.append(scope, 0, [runStartedDraft()]);
      const badCause = await rejectionOf(journal.append(scope, 1, [...notes(1, 1), eventDraft("test.noted", {}, { causationId: "cause_\uD800" })]));
      expect([badCause.code, badCause.details]).toEqual(["JOURNAL_INVALID_APPEND", { seq: 2 }]);
      expect(badCause.message).toContain("causationId");
      expect((await journal.head(scope))?.length).toBe(1);
    });
  });

  it("ids that are not strings are refused, and never answered with the run whose id is their text", async () => {
    await withJournal(async (journal) => {
      await journal.append({ tenantId: "tenant_a", runId: "5" }, 0, [runStartedDraft()]);
      await journal.append({ tenantId: "7", runId: "run_1" }, 0, [runStartedDraft()]);
      for (const odd of [
        { tenantId: "tenant_a", runId: 5 },
        { tenantId: 7, runId: "run_1" },
      ] as unknown as RunScope[]) {
        expect((await rejectionOf(journal.append(odd, 1, notes(1, 1)))).code).toBe("JOURNAL_INVALID_APPEND");
        expect(await journal.head(odd)).toBeNull();
        expect(await collect(journal.read(odd))).toEqual([]);
        expect(await journal.verify(odd)).toMatchObject({ ok: true, events: 0 });
      }
      expect(await collect(journal.listRuns(7 as unknown as string))).toEqual([]);
    });
  });

  it("a read-only journal's refusal names what was refused", async () => {
    const filename = directory.file("journal.db");
    await (await createSqliteJournal({ filename })).close();
    const journal = await createSqliteJournal({ filename, readOnly: true });
    expect((await rejectionOf(journal.append(scope, 0, [runStartedDraft()]))).message).toContain("append");
    const lease = { ...scope, ownerId: "a", token: 1, expiresAt: 0 };
    expect((await rejectionOf(journal.leases.renew(lease, 1_000))).message).toContain("renew");
    expect((await rejectionOf(journal.leases.release(lease))).code).toBe("JOURNAL_READ_ONLY");
    expect(await journal.leases.current(scope)).toBeNull();
    await journal.close();
  });
});

describe("sqlite journal: close", () => {
  it("stops a listRuns that is part-way through its pages with JOURNAL_CLOSED", async () => {
    await withJournal(async (journal) => {
      const count = LIST_RUNS_PAGE_SIZE + 2;
      for (let index = 0; index < count; index++)
        await journal.append({ tenantId: "tenant_a", runId: `run_${String(index).padStart(4, "0")}` }, 0, [runStartedDraft()]);
      const listed: string[] = [];
      const refused = await rejectionOf(
        (async () => {
          for await (const run of journal.listRuns("tenant_a")) {
            listed.push(run.runId);
            if (listed.length === 1) await journal.close();
          }
        })(),
      );
      expect(refused.code).toBe("JOURNAL_CLOSED");
      expect(listed).toHaveLength(LIST_RUNS_PAGE_SIZE);
    });
  });
});

describe("sqlite journal: the head witness of another connection", () => {
  it("re-reads the witness before a check: a tail another journal appended and someone deleted is JOURNAL_TRUNCATED", async () => {
    const filename = directory.file("journal.db");
    const first = await createSqliteJournal({ filename });
    await first.append(scope, 0, [runStartedDraft(), ...notes(1, 1)]);
    expect((await first.head(scope))?.length).toBe(2);
    const second = await createSqliteJournal({ filename });
    await second.append(scope, 2, notes(2, 2));
    await second.close();
    const db = new Database(filename);
    db.prepare("DELETE FROM events WHERE seq >= 2").run();
    db.close();
    expect((await rejectionOf(first.head(scope))).code).toBe("JOURNAL_TRUNCATED");
    expect((await rejectionOf(collect(first.read(scope)))).code).toBe("JOURNAL_TRUNCATED");
    expect(await first.verify(scope)).toMatchObject({ ok: false, reason: "truncated", firstBadSeq: 2 });
    // A range that ends before the loss reads as it is: only a read to the end promises the whole run.
    expect((await collect(first.read(scope, { toSeq: 2 }))).map((event) => event.seq)).toEqual([0, 1]);
    await first.close();
  });
});
