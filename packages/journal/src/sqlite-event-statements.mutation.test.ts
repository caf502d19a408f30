// Clauses of the SQLite read path (sqlite-event-statements.ts) that no other test pinned,
// found by applying mutations by hand (reports/mutation/journal.md, 2026-12-03), then by
// Stryker (the fourth session of 2026-12-03: the failure messages of a walk, and the operation
// a driver failure of each read query is reported as).
import type { JournalEvent, RunScope } from "@yoke/protocol";
import { eventDraft, runStartedDraft } from "@yoke/testkit";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { tempDirectoryPerTest } from "./__fixtures__/temp-files.js";
import type { SqliteDatabaseLike } from "./sqlite-database.js";
import { EventStatements, type ChainStep } from "./sqlite-event-statements.js";
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

/** A journal file holding a run of `events` events, closed; the path of the file. */
async function runFile(events: number): Promise<string> {
  const filename = directory.file("journal.db");
  const journal = await createSqliteJournal({ filename, synchronous: "normal" });
  await journal.append(scope, 0, [runStartedDraft(), ...Array.from({ length: events - 1 }, (_, index) => eventDraft("test.noted", { index: index + 1 }))]);
  await journal.close();
  return filename;
}

/**
 * `db` with every statement whose SQL matches `failing` (set at any time) throwing a disk I/O
 * error as better-sqlite3 does: a driver failure in the middle of a read.
 */
function flaky(db: Database.Database): { readonly database: SqliteDatabaseLike; failing: RegExp | undefined } {
  const control: { database: SqliteDatabaseLike; failing: RegExp | undefined } = { database: undefined as never, failing: undefined };
  const ioError = Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR_READ" });
  const prepare = (sql: string) => {
    const statement = db.prepare(sql);
    const guarded =
      <T>(run: (...params: unknown[]) => T) =>
      (...params: unknown[]): T => {
        if (control.failing?.test(sql)) throw ioError;
        return run(...params);
      };
    return {
      reader: statement.reader,
      run: guarded((...params) => statement.run(...params)),
      get: guarded((...params) => statement.get(...params)),
      all: guarded((...params) => statement.all(...params)),
      iterate: guarded((...params) => statement.iterate(...params)),
    };
  };
  control.database = { prepare } as unknown as SqliteDatabaseLike;
  return control;
}

function walked(statements: EventStatements, fromSeq: number, toSeq: number): { seqs: number[]; last?: ChainStep; error?: unknown } {
  const seqs: number[] = [];
  try {
    for (const step of statements.walk(scope, fromSeq, toSeq, () => {})) {
      if (!("event" in step)) return { seqs, last: step };
      seqs.push(step.event.seq);
    }
  } catch (error) {
    return { seqs, error };
  }
  return { seqs };
}

describe("a walk's failures say what is wrong", () => {
  it("a deleted predecessor: 'event <seq> is missing'", async () => {
    const db = new Database(await runFile(5));
    try {
      db.prepare("DELETE FROM events WHERE seq = 2").run();
      const statements = new EventStatements(db);
      expect(walked(statements, 3, 5)).toEqual({
        seqs: [],
        last: { failure: { ok: false, firstBadSeq: 2, reason: "sequence_gap", message: "event 2 is missing" } },
      });
      // From after the gap, the predecessor being there, the walk reads on.
      expect(walked(statements, 4, 5)).toEqual({ seqs: [4] });
    } finally {
      db.close();
    }
  });

  it("data that is not JSON: 'data is not valid JSON: ' and the parser's message", async () => {
    const db = new Database(await runFile(5));
    try {
      const broken = '{"index": 3, ';
      db.prepare("UPDATE events SET data = ? WHERE seq = 3").run(broken);
      let parserMessage = "";
      try {
        JSON.parse(broken);
      } catch (error) {
        parserMessage = (error as Error).message;
      }
      expect(parserMessage).not.toBe("");
      expect(walked(new EventStatements(db), 0, 5)).toEqual({
        seqs: [0, 1, 2],
        last: { failure: { ok: false, firstBadSeq: 3, reason: "malformed", message: `data is not valid JSON: ${parserMessage}` } },
      });
    } finally {
      db.close();
    }
  });
});

describe("a driver failure in a read query is reported as the read's", () => {
  const refusal = {
    code: "JOURNAL_UNAVAILABLE",
    message: "SQLite journal: read failed: disk I/O error",
    details: { operation: "read", sqliteCode: "SQLITE_IOERR_READ" },
  };

  it("in each query of a walk: the predecessor's hash, the probe for a later event, a page", async () => {
    const db = new Database(await runFile(5));
    try {
      const control = flaky(db);
      const statements = new EventStatements(control.database);
      control.failing = /^SELECT hash /;
      expect(walked(statements, 2, 5).error).toMatchObject(refusal);
      control.failing = /^SELECT seq, type/;
      expect(walked(statements, 0, 5).error).toMatchObject(refusal);
      control.failing = undefined;
      db.prepare("DELETE FROM events WHERE seq = 1").run();
      control.failing = /^SELECT seq FROM/;
      expect(walked(statements, 2, 5).error).toMatchObject(refusal);
      control.failing = undefined;
      expect(walked(statements, 2, 5).last).toMatchObject({ failure: { firstBadSeq: 1, reason: "sequence_gap" } });
    } finally {
      db.close();
    }
  });

  it("in hashAt and allHeads", async () => {
    const db = new Database(await runFile(5));
    try {
      const control = flaky(db);
      const statements = new EventStatements(control.database);
      expect(statements.hashAt(scope, 4)).toMatch(/^[0-9a-f]{64}$/);
      expect(statements.allHeads()).toEqual([{ scope, head: { length: 5, hash: statements.hashAt(scope, 4) } }]);
      control.failing = /^SELECT hash /;
      expect(() => statements.hashAt(scope, 4)).toThrow(expect.objectContaining(refusal));
      control.failing = /^SELECT e\.tenant_id/;
      expect(() => statements.allHeads()).toThrow(expect.objectContaining(refusal));
    } finally {
      db.close();
    }
  });
});
