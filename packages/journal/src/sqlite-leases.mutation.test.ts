// Clauses of the SQLite run leases that the lease contract (run-leases.test.ts) does not pin:
// a refusal names the operation refused, and a lock timeout is reported as the lease update's.
// Written for the mutants StrykerJS left alive (reports/mutation/journal.md, 2026-12-03).
import type { RunScope } from "@yoke/protocol";
import { rejectionOf } from "@yoke/testkit";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { tempDirectoryPerTest } from "./__fixtures__/temp-files.js";
import { createSqliteJournal } from "./sqlite-journal.js";

const scope: RunScope = { tenantId: "tenant_a", runId: "run_1" };
const directory = tempDirectoryPerTest("yoke-leases-");

describe("sqlite leases: refusals name what was refused", () => {
  it("on a read-only journal: acquire and release say which", async () => {
    const filename = directory.file("journal.db");
    await (await createSqliteJournal({ filename })).close();
    const journal = await createSqliteJournal({ filename, readOnly: true });
    try {
      const acquired = await rejectionOf(journal.leases.acquire(scope, { ownerId: "a", ttlMs: 1_000 }));
      expect(acquired.code).toBe("JOURNAL_READ_ONLY");
      expect(acquired.message).toContain("cannot acquire a lease");
      const released = await rejectionOf(journal.leases.release({ ...scope, ownerId: "a", token: 1, expiresAt: 0 }));
      expect(released.code).toBe("JOURNAL_READ_ONLY");
      expect(released.message).toContain("cannot release a lease");
    } finally {
      await journal.close();
    }
  });

  it("an id with a lone surrogate: the message says the ids must be well-formed Unicode", async () => {
    const journal = await createSqliteJournal({ filename: directory.file("journal.db"), synchronous: "normal" });
    try {
      const refused = await rejectionOf(journal.leases.acquire({ tenantId: "tenant_a", runId: "run_\uD800" }, { ownerId: "a", ttlMs: 1_000 }));
      expect(refused.code).toBe("JOURNAL_INVALID_APPEND");
      expect(refused.message).toBe("tenantId and runId must be well-formed Unicode strings");
    } finally {
      await journal.close();
    }
  });

  it("a lease update that finds the file locked: JOURNAL_UNAVAILABLE naming the lease update", async () => {
    const filename = directory.file("journal.db");
    const journal = await createSqliteJournal({ filename, synchronous: "normal", busyTimeoutMs: 0 });
    const other = new Database(filename);
    try {
      other.exec("BEGIN IMMEDIATE");
      const refused = await rejectionOf(journal.leases.acquire(scope, { ownerId: "a", ttlMs: 1_000 }));
      expect(refused.code).toBe("JOURNAL_UNAVAILABLE");
      expect(refused.details).toMatchObject({ operation: "update a run lease" });
      other.exec("ROLLBACK");
      expect(await journal.leases.acquire(scope, { ownerId: "a", ttlMs: 1_000 })).toMatchObject({ ownerId: "a", token: 1 });
    } finally {
      other.close();
      await journal.close();
    }
  });
});
