// Clauses of the SQLite journal's append path that the journal contract and the other SQLite
// tests do not pin: the refusal of ids that are not well-formed Unicode says so, a lock timeout is
// reported as the append's, and a witness line that cannot be written after the commit is
// reported, not swallowed. Written for the mutants StrykerJS left alive
// (reports/mutation/journal.md, session of 2026-12-03, second).
import { rmSync } from "node:fs";
import type { RunScope } from "@yoke/protocol";
import { eventDraft, rejectionOf, runStartedDraft } from "@yoke/testkit";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { tempDirectoryPerTest } from "./__fixtures__/temp-files.js";
import { createSqliteJournal } from "./sqlite-journal.js";

const scope: RunScope = { tenantId: "tenant_a", runId: "run_1" };
const directory = tempDirectoryPerTest("yoke-sqlite-mutation-");
const notes = (from: number, count: number) => Array.from({ length: count }, (_, index) => eventDraft("test.noted", { index: from + index }));

describe("sqlite journal append: what a refusal says", () => {
  it("an id with a lone surrogate: the message says the ids must be well-formed Unicode", async () => {
    const journal = await createSqliteJournal({ filename: directory.file("journal.db"), synchronous: "normal" });
    try {
      const refused = await rejectionOf(journal.append({ tenantId: "tenant_a", runId: "run_\uD800" }, 0, [runStartedDraft()]));
      expect(refused.code).toBe("JOURNAL_INVALID_APPEND");
      expect(refused.message).toBe("tenantId and runId must be well-formed Unicode strings");
    } finally {
      await journal.close();
    }
  });

  it("an append that finds the file locked: JOURNAL_UNAVAILABLE naming the append, nothing stored", async () => {
    const filename = directory.file("journal.db");
    const journal = await createSqliteJournal({ filename, synchronous: "normal", busyTimeoutMs: 0 });
    const other = new Database(filename);
    try {
      await journal.append(scope, 0, [runStartedDraft()]);
      other.exec("BEGIN IMMEDIATE");
      const refused = await rejectionOf(journal.append(scope, 1, notes(1, 2)));
      expect(refused.code).toBe("JOURNAL_UNAVAILABLE");
      expect(refused.details).toMatchObject({ operation: "append" });
      other.exec("ROLLBACK");
      expect((await journal.head(scope))?.length).toBe(1);
      expect(await journal.append(scope, 1, notes(1, 2))).toMatchObject({ lastSeq: 2 });
    } finally {
      other.close();
      await journal.close();
    }
  });
});

describe("sqlite journal append: the head witness line after the commit", () => {
  it("a witness that disappeared after open: the append is refused (JOURNAL_WITNESS_INVALID) though its events were committed", async () => {
    const filename = directory.file("journal.db");
    const journal = await createSqliteJournal({ filename, synchronous: "normal" });
    try {
      await journal.append(scope, 0, [runStartedDraft()]);
      rmSync(`${filename}-head`);
      const refused = await rejectionOf(journal.append(scope, 1, notes(1, 2)));
      expect(refused.code).toBe("JOURNAL_WITNESS_INVALID");
      expect(refused.details).toMatchObject({ witness: `${filename}-head` });
    } finally {
      await journal.close();
    }
    // Only the witness line is missing: the events are in the file.
    const db = new Database(filename, { readonly: true });
    try {
      expect(db.prepare("SELECT COUNT(*) AS n FROM events").get()).toEqual({ n: 3 });
    } finally {
      db.close();
    }
  });
});
