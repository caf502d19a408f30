// Clauses of the SQLite read path (sqlite-event-statements.ts) that no other test pinned,
// found by applying mutations by hand (reports/mutation/journal.md, 2026-12-03).
import type { JournalEvent, RunScope } from "@yoke/protocol";
import { eventDraft, runStartedDraft } from "@yoke/testkit";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { tempDirectoryPerTest } from "./__fixtures__/temp-files.js";
import { createSqliteJournal } from "./sqlite-journal.js";

const scope: RunScope = { tenantId: "tenant_a", runId: "run_1" };
const directory = tempDirectoryPerTest("yoke-statements-");

describe("sqlite reads after a deleted event", () => {
  it("a read from the last event, whose predecessor was deleted, is a sequence gap, not an empty read", async () => {
    const filename = directory.file("journal.db");
    const writer = await createSqliteJournal({ filename, synchronous: "normal" });
    await writer.append(scope, 0, [runStartedDraft(), ...Array.from({ length: 4 }, (_, index) => eventDraft("test.noted", { index: index + 1 }))]);
    await writer.close();
    const db = new Database(filename);
    db.prepare("DELETE FROM events WHERE seq = 3").run();
    db.close();
    const journal = await createSqliteJournal({ filename, synchronous: "normal" });
    try {
      const seen: JournalEvent[] = [];
      let refused: unknown;
      try {
        for await (const event of journal.read(scope, { fromSeq: 4 })) seen.push(event);
      } catch (error) {
        refused = error;
      }
      expect(seen).toEqual([]);
      expect(refused).toMatchObject({ code: "JOURNAL_CHAIN_BROKEN", details: { seq: 3, reason: "sequence_gap" } });
    } finally {
      await journal.close();
    }
  });
});
