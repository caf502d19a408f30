import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { parseYokeEvent } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { tempDirectoryPerTest } from "./__fixtures__/temp-files.js";
import { createSqliteJournal } from "./sqlite-journal.js";

const FIXTURES = join(import.meta.dirname, "__fixtures__", "journal");

describe("sqlite journal: historical files", () => {
  const directory = tempDirectoryPerTest();

  it("reads and verifies a layout-1 journal", async () => {
    const filename = directory.file("sqlite-v1.db");
    copyFileSync(join(FIXTURES, "sqlite-v1.db"), filename);
    const journal = await createSqliteJournal({ filename });
    try {
      const scope = { tenantId: "tenant_fixture", runId: "run_fixture_1" };
      expect(await journal.verify(scope)).toEqual({
        ok: true,
        events: 4,
        headHash: "fbf81ba38b8da152ef32dd2f8ba4bc77de05ac2918107a9a18e61f089e93ab57",
        chain: "sha256",
        keyIds: [],
      });
      const types: string[] = [];
      for await (const event of journal.read(scope)) types.push(parseYokeEvent(event).type);
      expect(types).toEqual(["run.started", "turn.started", "model.requested", "run.completed"]);
      expect(await journal.verify({ tenantId: "tenant_other", runId: "run_fixture_1" })).toMatchObject({ ok: true, events: 1 });
      const runs: string[] = [];
      for await (const run of journal.listRuns("tenant_fixture")) runs.push(`${run.runId}:${run.length}`);
      expect(runs).toEqual(["run_fixture_1:4"]);
      // Still writable by this version.
      await journal.append(scope, 4, [{ type: "test.noted", at: 1_700_000_000_300, data: {} }]);
      expect(await journal.verify(scope)).toMatchObject({ ok: true, events: 5 });
    } finally {
      await journal.close();
    }
  });

  it("reads a layout-3 journal's per-run fencing tokens, and numbers every later lease above all of them", async () => {
    const filename = directory.file("sqlite-v3-leases.db");
    copyFileSync(join(FIXTURES, "sqlite-v3-leases.db"), filename);
    const journal = await createSqliteJournal({ filename, headWitness: "none" });
    try {
      const runA = { tenantId: "tenant_fixture", runId: "run_leased_a" };
      const runB = { tenantId: "tenant_fixture", runId: "run_leased_b" };
      expect(await journal.leases.current(runA)).toEqual({ ...runA, ownerId: "worker-3", token: 3, expiresAt: 1_700_000_000_000 });
      const kept = await journal.leases.current(runB);
      expect(kept).toEqual({ ...runB, ownerId: "worker-1", token: 1, expiresAt: 1_700_000_001_000 });
      // Expired, never taken over: its owner may still write with the token it was given.
      await journal.append(runB, 0, [{ type: "run.started", at: 1_700_000_000_500, data: {} }], { lease: kept! });
      // A new run's first lease outranks every token the file ever handed out, whichever run held it.
      const fresh = await journal.leases.acquire({ tenantId: "tenant_fixture", runId: "run_new" }, { ownerId: "worker-4", ttlMs: 1_000 });
      expect(fresh.token).toBe(4);
      expect((await journal.leases.acquire(runB, { ownerId: "worker-4", ttlMs: 1_000 })).token).toBe(5);
      expect(await journal.verify(runA)).toMatchObject({ ok: true, events: 1 });
    } finally {
      await journal.close();
    }
  });
});
