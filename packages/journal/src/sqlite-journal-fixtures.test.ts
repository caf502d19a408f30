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
});
