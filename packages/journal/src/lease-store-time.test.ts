import type { Clock } from "@yoke/protocol";
import { rejectionOf } from "@yoke/testkit";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { tempDirectoryPerTest } from "./__fixtures__/temp-files.js";
import { createSqliteJournal } from "./sqlite-journal.js";

const scope = { tenantId: "tenant_a", runId: "run_a" };
const TTL = 30_000;

/** A caller's injected clock that runs `offsetMs` ahead of the host's. */
const skewedClock = (offsetMs: number): Clock => ({ specificationVersion: "v1", now: () => Date.now() + offsetMs });

/** The database's own time, as SQLite reads it (ms since the epoch). */
function databaseNow(filename: string): number {
  const db = new Database(filename, { readonly: true });
  try {
    return Number((db.prepare("SELECT CAST(unixepoch('subsec') * 1000 AS INTEGER) AS now").get() as { now: number }).now);
  } finally {
    db.close();
  }
}

describe("sqlite leases on the store's time", () => {
  const directory = tempDirectoryPerTest();

  it("never lets a caller whose clock runs 60 s ahead take a live lease, or append past it", async () => {
    const filename = directory.file("journal.db");
    const owner = await createSqliteJournal({ filename, synchronous: "normal" });
    const resumer = await createSqliteJournal({ filename, synchronous: "normal", clock: skewedClock(60_000) });
    try {
      const lease = await owner.leases.acquire(scope, { ownerId: "owner_a", ttlMs: TTL });
      const held = await rejectionOf(resumer.leases.acquire(scope, { ownerId: "owner_b", ttlMs: TTL }));
      expect(held.code).toBe("RUN_LEASE_HELD");
      expect((await rejectionOf(resumer.append(scope, 0, [{ type: "run.started", at: 1, data: {} }]))).code).toBe("RUN_LEASE_HELD");
      expect(await resumer.leases.current(scope)).toEqual(lease);
    } finally {
      await resumer.close();
      await owner.close();
    }
  });

  it("measures expiry on the database's clock by default, read inside the lease's transaction", async () => {
    const filename = directory.file("journal.db");
    const journal = await createSqliteJournal({ filename, synchronous: "normal", clock: skewedClock(-3_600_000) });
    try {
      const before = databaseNow(filename);
      const lease = await journal.leases.acquire(scope, { ownerId: "owner_a", ttlMs: TTL });
      const after = databaseNow(filename);
      expect(lease.expiresAt).toBeGreaterThanOrEqual(before + TTL);
      expect(lease.expiresAt).toBeLessThanOrEqual(after + TTL);
    } finally {
      await journal.close();
    }
  });

  it("hands out fencing tokens from one counter per store, across runs and tenants", async () => {
    const filename = directory.file("journal.db");
    const first = await createSqliteJournal({ filename, synchronous: "normal" });
    const second = await createSqliteJournal({ filename, synchronous: "normal" });
    try {
      const tokens = [
        (await first.leases.acquire({ tenantId: "tenant_a", runId: "run_1" }, { ownerId: "a", ttlMs: TTL })).token,
        (await second.leases.acquire({ tenantId: "tenant_b", runId: "run_2" }, { ownerId: "b", ttlMs: TTL })).token,
        (await first.leases.acquire({ tenantId: "tenant_a", runId: "run_3" }, { ownerId: "a", ttlMs: TTL })).token,
      ];
      expect(tokens).toEqual([1, 2, 3]);
    } finally {
      await second.close();
      await first.close();
    }
  });
});
