// Clauses of the SQLite journal's append path that the journal contract and the other SQLite
// tests do not pin: the refusal of ids that are not well-formed Unicode says so, a lock timeout is
// reported as the append's, and a witness line that cannot be written after the commit is
// reported, not swallowed. Written for the mutants StrykerJS left alive
// (reports/mutation/journal.md, session of 2026-12-03, second).
import { existsSync, rmSync, writeFileSync } from "node:fs";
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

describe("sqlite journal: refusals and witness checks outside the append", () => {
  it("a closed journal says it is closed", async () => {
    const journal = await createSqliteJournal({ filename: directory.file("journal.db"), synchronous: "normal" });
    await journal.close();
    const refused = await rejectionOf(journal.head(scope));
    expect(refused.code).toBe("JOURNAL_CLOSED");
    expect(refused.message).toBe("the SQLite journal is closed");
  });

  it("an append over a run its witness says is longer: JOURNAL_TRUNCATED saying how many events each has", async () => {
    const filename = directory.file("journal.db");
    const journal = await createSqliteJournal({ filename, synchronous: "normal" });
    try {
      await journal.append(scope, 0, [runStartedDraft(), ...notes(1, 2)]);
      const db = new Database(filename);
      db.prepare("DELETE FROM events WHERE seq >= 1").run();
      db.close();
      const refused = await rejectionOf(journal.append(scope, 1, notes(1, 1)));
      expect(refused.code).toBe("JOURNAL_TRUNCATED");
      expect(refused.message).toContain("the run has 1 events but its head witness says 3 were acknowledged");
    } finally {
      await journal.close();
    }
  });

  it("verify re-reads the witness itself: a tail another journal appended and someone deleted is truncated, verify being the first call", async () => {
    const filename = directory.file("journal.db");
    const first = await createSqliteJournal({ filename, synchronous: "normal" });
    try {
      await first.append(scope, 0, [runStartedDraft(), ...notes(1, 1)]);
      const second = await createSqliteJournal({ filename, synchronous: "normal" });
      await second.append(scope, 2, notes(2, 2));
      await second.close();
      const db = new Database(filename);
      db.prepare("DELETE FROM events WHERE seq >= 2").run();
      db.close();
      expect(await first.verify(scope)).toMatchObject({ ok: false, reason: "truncated", firstBadSeq: 2 });
    } finally {
      await first.close();
    }
  });

  it('filename ":memory:": with create true or left out, no file and no witness written; with create: false, refused as holding no journal (not as missing)', async () => {
    // A mutant that takes ":memory:" for a file name writes these into the working directory.
    const strays = () => [":memory:", ":memory:-head"].filter((name) => existsSync(name));
    expect(strays()).toEqual([]);
    try {
      const journal = await createSqliteJournal({ filename: ":memory:", create: true });
      try {
        expect(journal.headWitnessPath).toBeNull();
        expect(journal.capabilities).toEqual({ durable: false, multiProcess: false });
        await journal.append(scope, 0, [runStartedDraft()]);
        expect(await journal.verify(scope)).toMatchObject({ ok: true, events: 1 });
      } finally {
        await journal.close();
      }
      // By default too (create left out): an in-memory database is new at every open, as a missing file is.
      const byDefault = await createSqliteJournal({ filename: ":memory:" });
      try {
        await byDefault.append(scope, 0, [runStartedDraft()]);
        expect(await byDefault.head(scope)).toMatchObject({ length: 1 });
      } finally {
        await byDefault.close();
      }
      const refused = await rejectionOf(createSqliteJournal({ filename: ":memory:", create: false }));
      expect(refused.code).toBe("JOURNAL_NOT_INITIALIZED");
      expect(refused.message).toContain("holds no journal");
      expect(strays()).toEqual([]);
    } finally {
      for (const name of strays()) rmSync(name, { force: true });
    }
  });

  it("a file that is not a database: JOURNAL_CORRUPT naming the open as the operation", async () => {
    const filename = directory.file("journal.db");
    writeFileSync(filename, "this is not a SQLite database, only text long enough to have a header\n".repeat(64));
    const refused = await rejectionOf(createSqliteJournal({ filename }));
    expect(refused.code).toBe("JOURNAL_CORRUPT");
    expect(refused.details).toMatchObject({ operation: "open the journal" });
  });
});
