import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { idempotencyStoreContractTests } from "@yoke/testkit/contracts";
import { describe, expect, it } from "vitest";
import { tempDirectory } from "./__fixtures__/temp-files.js";
import { createMemoryIdempotencyStore } from "./idempotency-memory.js";
import { createSqliteIdempotencyStore } from "./idempotency-sqlite.js";
import { createSqliteJournal } from "./sqlite-journal.js";

const memoryContract = idempotencyStoreContractTests("memory", async () => ({ store: createMemoryIdempotencyStore() }));
// A literal describe and it.for, so `vitest list` (a static read of this file) finds the suite.
describe("IdempotencyStoreV1 contract: memory", () => {
  it.for(memoryContract.tests)("$title", (test) => test.run());
});

const sqliteContract = idempotencyStoreContractTests("sqlite", async () => {
  const directory = tempDirectory();
  return { store: await createSqliteIdempotencyStore({ filename: directory.file("journal.sqlite") }), cleanup: () => directory.remove() };
});
// A literal describe and it.for, so `vitest list` (a static read of this file) finds the suite.
describe("IdempotencyStoreV1 contract: sqlite", () => {
  it.for(sqliteContract.tests)("$title", (test) => test.run());
});

describe("sqlite idempotency records", () => {
  it("live in the journal file, survive reopening, and migrate a layout-1 journal in place", async () => {
    const directory = tempDirectory();
    try {
      const filename = directory.file("sqlite-v1.db");
      copyFileSync(join(import.meta.dirname, "__fixtures__", "journal", "sqlite-v1.db"), filename);
      const store = await createSqliteIdempotencyStore({ filename });
      await store.claim({ tenantId: "tenant_a", key: "k", argumentDigest: "d", now: 0, leaseMs: 1 });
      await store.complete({ tenantId: "tenant_a", key: "k", argumentDigest: "d", outcome: { status: "succeeded", value: 1 }, now: 1 });
      await store.close();
      const reopened = await createSqliteIdempotencyStore({ filename });
      expect(await reopened.claim({ tenantId: "tenant_a", key: "k", argumentDigest: "d", now: 2, leaseMs: 1 })).toEqual({
        kind: "completed",
        outcome: { status: "succeeded", value: 1 },
      });
      await reopened.close();
      // The historical events are still there and verify.
      const journal = await createSqliteJournal({ filename });
      expect(await journal.verify({ tenantId: "tenant_fixture", runId: "run_fixture_1" })).toMatchObject({ ok: true, events: 4 });
      await journal.close();
    } finally {
      directory.remove();
    }
  });
});
