import { rejectionOf } from "@yoke/testkit";
import { runLeaseContractTests } from "@yoke/testkit/contracts";
import { describe, expect, it } from "vitest";
import { tempDirectory } from "./__fixtures__/temp-files.js";
import { createMemoryJournal } from "./memory-journal.js";
import { createSqliteJournal } from "./sqlite-journal.js";

const memoryLeases = runLeaseContractTests("memory", (clock) => ({ journal: createMemoryJournal({ clock }) }));
// A literal describe and it.for, so `vitest list` (a static read of this file) finds the suite.
describe("RunLeasesV1 contract: memory", () => {
  it.for(memoryLeases.tests)("$title", (test) => test.run());
});

const sqliteLeases = runLeaseContractTests(
  "sqlite",
  async (clock) => {
    const directory = tempDirectory();
    const journal = await createSqliteJournal({ filename: directory.file("journal.db"), storeClock: clock, synchronous: "normal" });
    return { journal, cleanup: () => directory.remove() };
  },
  { numRuns: 30 },
);
// A literal describe and it.for, so `vitest list` (a static read of this file) finds the suite.
describe("RunLeasesV1 contract: sqlite", () => {
  it.for(sqliteLeases.tests)("$title", (test) => test.run());
});

describe("sqlite leases", () => {
  it("refuse ids with a lone surrogate (JOURNAL_INVALID_APPEND) and never answer for them with the run that has U+FFFD in its place", async () => {
    const directory = tempDirectory();
    const journal = await createSqliteJournal({ filename: directory.file("journal.db"), synchronous: "normal" });
    try {
      const stored = { tenantId: "tenant_\uFFFD", runId: "run_\uFFFD" };
      await journal.leases.acquire(stored, { ownerId: "owner_a", ttlMs: 1_000 });
      const lookalikes = [
        { tenantId: "tenant_\uFFFD", runId: "run_\uD800" },
        { tenantId: "tenant_\uDC00", runId: "run_\uFFFD" },
      ];
      for (const lookalike of lookalikes) {
        expect((await rejectionOf(journal.leases.acquire(lookalike, { ownerId: "owner_b", ttlMs: 1_000 }))).code).toBe("JOURNAL_INVALID_APPEND");
        expect(await journal.leases.current(lookalike)).toBeNull();
      }
      expect(await journal.leases.current(stored)).toMatchObject({ ownerId: "owner_a", token: 1 });
    } finally {
      await journal.close();
      directory.remove();
    }
  });
});
