// Clauses of the idempotency stores that their contract (idempotency.test.ts) does not pin:
// the SQLite store over a caller's open Database, the pragmas it sets, what close does to the
// handle, driver failures named by operation, and the closed refusal's message. Written for
// the mutants StrykerJS left alive (reports/mutation/journal.md, 2026-12-03).
import { existsSync, writeFileSync } from "node:fs";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { rejectionOf } from "@yoke/testkit";
import { tempDirectoryPerTest } from "./__fixtures__/temp-files.js";
import { createMemoryIdempotencyStore } from "./idempotency-memory.js";
import { createSqliteIdempotencyStore } from "./idempotency-sqlite.js";

const directory = tempDirectoryPerTest("yoke-idem-");
const claim = { tenantId: "tenant_a", key: "action_1", argumentDigest: "digest_1", now: 0, leaseMs: 1_000 };

describe("sqlite idempotency store over an open better-sqlite3 Database", () => {
  it("keeps its records in that Database, sets synchronous=FULL and the default busy timeout, and leaves the Database open on close", async () => {
    const db = new Database(directory.file("journal.db"));
    try {
      const store = await createSqliteIdempotencyStore({ database: db });
      expect(db.pragma("synchronous", { simple: true })).toBe(2); // FULL
      expect(db.pragma("busy_timeout", { simple: true })).toBe(5_000);
      expect(await store.claim(claim)).toEqual({ kind: "claimed", reclaimed: false });
      await store.complete({ ...claim, outcome: { status: "succeeded", value: 7 }, now: 5 });
      expect(
        db.prepare("SELECT argument_digest, claimed_at, completed_at FROM idempotency_records WHERE tenant_id = ? AND key = ?").get("tenant_a", "action_1"),
      ).toEqual({
        argument_digest: "digest_1",
        claimed_at: 0,
        completed_at: 5,
      });
      await store.close();
      await store.close();
      expect(db.open).toBe(true);
    } finally {
      db.close();
    }
  });

  it("applies the busy timeout it is given", async () => {
    const db = new Database(directory.file("journal.db"));
    try {
      await createSqliteIdempotencyStore({ database: db, busyTimeoutMs: 1_234 });
      expect(db.pragma("busy_timeout", { simple: true })).toBe(1_234);
    } finally {
      db.close();
    }
  });

  it("a failed open leaves the caller's Database open", async () => {
    const db = new Database(directory.file("other.db"));
    try {
      db.exec("CREATE TABLE unrelated (id INTEGER)");
      expect((await rejectionOf(createSqliteIdempotencyStore({ database: db }))).code).toBe("JOURNAL_CORRUPT");
      expect(db.open).toBe(true);
      expect(db.prepare("SELECT count(*) AS n FROM unrelated").get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });
});

describe("sqlite idempotency store by file name", () => {
  it("closes its own Database on close: the last connection's close removes the WAL file", async () => {
    const filename = directory.file("journal.db");
    const store = await createSqliteIdempotencyStore({ filename });
    await store.claim(claim);
    expect(existsSync(`${filename}-wal`)).toBe(true);
    await store.close();
    expect(existsSync(`${filename}-wal`)).toBe(false);
  });

  it("a failed open closes the Database it opened", async () => {
    const filename = directory.file("other.db");
    const db = new Database(filename);
    db.pragma("journal_mode = WAL");
    db.exec("CREATE TABLE unrelated (id INTEGER)");
    db.close();
    expect((await rejectionOf(createSqliteIdempotencyStore({ filename }))).code).toBe("JOURNAL_CORRUPT");
    expect(existsSync(`${filename}-wal`)).toBe(false);
  });
});

describe("sqlite idempotency store: driver failures name the operation", () => {
  it("a file that is not a database: JOURNAL_CORRUPT from opening the store", async () => {
    const filename = directory.file("garbage.db");
    writeFileSync(filename, "this is not a SQLite database, only some text long enough to be read as a header".repeat(20));
    const refused = await rejectionOf(createSqliteIdempotencyStore({ filename }));
    expect(refused.code).toBe("JOURNAL_CORRUPT");
    expect(refused.details).toMatchObject({ operation: "open the idempotency store" });
  });

  it("a claim or complete that finds the file locked: JOURNAL_UNAVAILABLE naming claim or complete", async () => {
    const filename = directory.file("journal.db");
    const store = await createSqliteIdempotencyStore({ filename, busyTimeoutMs: 0 });
    await store.claim(claim);
    const other = new Database(filename);
    try {
      other.exec("BEGIN IMMEDIATE");
      const claimed = await rejectionOf(store.claim({ ...claim, key: "action_2" }));
      expect(claimed.code).toBe("JOURNAL_UNAVAILABLE");
      expect(claimed.details).toMatchObject({ operation: "claim an idempotency key" });
      const completed = await rejectionOf(store.complete({ ...claim, outcome: { status: "succeeded", value: 1 }, now: 1 }));
      expect(completed.code).toBe("JOURNAL_UNAVAILABLE");
      expect(completed.details).toMatchObject({ operation: "complete an idempotency key" });
      other.exec("ROLLBACK");
    } finally {
      other.close();
      await store.close();
    }
  });
});

describe("a closed idempotency store says so", () => {
  it.for([
    ["memory", async () => createMemoryIdempotencyStore()],
    ["sqlite", async () => createSqliteIdempotencyStore({ filename: directory.file("journal.db") })],
  ] as const)("%s", async ([, open]) => {
    const store = await open();
    await store.close();
    for (const call of [store.claim(claim), store.complete({ ...claim, outcome: { status: "succeeded", value: 1 }, now: 1 })]) {
      const refused = await rejectionOf(call);
      expect(refused.code).toBe("JOURNAL_CLOSED");
      expect(refused.message).toBe("the idempotency store is closed");
    }
  });
});
