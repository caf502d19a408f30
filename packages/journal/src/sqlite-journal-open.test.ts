import { existsSync, rmSync, writeFileSync } from "node:fs";
import { YokeError, type RunScope } from "@yoke/protocol";
import { eventDraft, runStartedDraft } from "@yoke/testkit";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { tempDirectoryPerTest } from "./__fixtures__/temp-files.js";
import { createSqliteJournal, type SqliteJournalOptions } from "./sqlite-journal.js";

const scope: RunScope = { tenantId: "tenant_a", runId: "run_1" };
const directory = tempDirectoryPerTest("yoke-open-");

async function writeRun(filename: string): Promise<void> {
  const journal = await createSqliteJournal({ filename });
  await journal.append(scope, 0, [runStartedDraft(), eventDraft("test.noted", { index: 1 })]);
  await journal.close();
}

/** The YokeError an open fails with (the journal is closed when it opens). */
async function refusalOf(options: SqliteJournalOptions): Promise<YokeError> {
  let journal: Awaited<ReturnType<typeof createSqliteJournal>> | undefined;
  try {
    journal = await createSqliteJournal(options);
  } catch (error) {
    if (!YokeError.isInstance(error)) throw error;
    return error;
  }
  await journal.close();
  throw new Error("expected the open to be refused, but it opened");
}

/** A SQLite file that is not empty and holds no table (one was created and dropped). */
function tablelessFile(filename: string): void {
  const db = new Database(filename);
  db.exec("CREATE TABLE scratch (id INTEGER); DROP TABLE scratch;");
  db.close();
}

describe("sqlite journal over an open better-sqlite3 Database", () => {
  it("on a file: keeps the head witness beside that file, is durable, and closes the Database on close", async () => {
    const filename = directory.file("journal.db");
    const db = new Database(filename);
    const journal = await createSqliteJournal({ database: db });
    expect(journal.headWitnessPath).toBe(`${filename}-head`);
    expect(journal.capabilities).toEqual({ durable: true, multiProcess: true });
    await journal.append(scope, 0, [runStartedDraft()]);
    expect(existsSync(`${filename}-head`)).toBe(true);
    await journal.close();
    expect(db.open).toBe(false);
  });

  it("in memory (':memory:' or an anonymous temporary database): no head witness, neither durable nor multi-process", async () => {
    for (const name of [":memory:", ""]) {
      const journal = await createSqliteJournal({ database: new Database(name) });
      expect(journal.headWitnessPath, `Database(${JSON.stringify(name)})`).toBeNull();
      expect(journal.capabilities).toEqual({ durable: false, multiProcess: false });
      await journal.append(scope, 0, [runStartedDraft()]);
      expect(await journal.verify(scope)).toMatchObject({ ok: true, events: 1 });
      await journal.close();
    }
    expect(existsSync("-head")).toBe(false);
  });

  it("refuses a database emptied under a head witness that records events (JOURNAL_TRUNCATED), unless the witness is adopted", async () => {
    const filename = directory.file("journal.db");
    await writeRun(filename);
    writeFileSync(filename, "");
    for (const create of [{}, { create: true }]) {
      const db = new Database(filename);
      expect((await refusalOf({ database: db, ...create })).code).toBe("JOURNAL_TRUNCATED");
      // Refused before any table is written (the witness guard alone would refuse only after), and
      // left open for the caller.
      expect(db.prepare("SELECT count(*) AS n FROM sqlite_master").get()).toEqual({ n: 0 });
      expect(db.open).toBe(true);
      db.close();
    }
    const adopted = await createSqliteJournal({ database: new Database(filename), headWitness: "adopt" });
    expect(await adopted.head(scope)).toBeNull();
    await adopted.close();
  });

  it("by name, writes a new journal into an emptied file over its witness only when told to adopt that witness", async () => {
    const filename = directory.file("journal.db");
    await writeRun(filename);
    writeFileSync(filename, "");
    expect((await refusalOf({ filename, create: true })).code).toBe("JOURNAL_TRUNCATED");
    const adopted = await createSqliteJournal({ filename, create: true, headWitness: "adopt" });
    expect(await adopted.head(scope)).toBeNull();
    await adopted.close();
  });

  it("leaves the caller's Database open and usable when the open fails", async () => {
    const filename = directory.file("other.db");
    const db = new Database(filename);
    db.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY)");
    expect((await refusalOf({ database: db })).code).toBe("JOURNAL_CORRUPT");
    expect(db.open).toBe(true);
    expect(db.prepare("SELECT count(*) AS n FROM customers").get()).toEqual({ n: 0 });
    db.close();
  });
});

describe("sqlite journal: opening an existing file that holds no journal", () => {
  it("refuses a table-less file by name unless create: true (a caller's Database may be initialized)", async () => {
    const filename = directory.file("tableless.db");
    tablelessFile(filename);
    const refused = await refusalOf({ filename, headWitness: "none" });
    expect(refused.code).toBe("JOURNAL_NOT_INITIALIZED");
    const created = await createSqliteJournal({ filename, headWitness: "none", create: true });
    await created.append(scope, 0, [runStartedDraft()]);
    await created.close();
    const other = directory.file("tableless-2.db");
    tablelessFile(other);
    const overDatabase = await createSqliteJournal({ database: new Database(other), headWitness: "none" });
    expect(await overDatabase.head(scope)).toBeNull();
    await overDatabase.close();
  });

  it("names a lost journal JOURNAL_TRUNCATED when a table-less file replaced one whose witness records events", async () => {
    const filename = directory.file("journal.db");
    await writeRun(filename);
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${filename}${suffix}`, { force: true });
    tablelessFile(filename);
    expect((await refusalOf({ filename })).code).toBe("JOURNAL_TRUNCATED");
    expect((await refusalOf({ filename, headWitness: "adopt" })).code).toBe("JOURNAL_NOT_INITIALIZED");
    expect((await refusalOf({ filename, headWitness: "none" })).code).toBe("JOURNAL_NOT_INITIALIZED");
  });
});

describe("sqlite journal: refusals carry their details", () => {
  it("JOURNAL_NOT_INITIALIZED names the file: missing with create: false or read-only, or empty", async () => {
    const missing = directory.file("missing.db");
    const notCreated = await refusalOf({ filename: missing, create: false });
    expect([notCreated.code, notCreated.details]).toEqual(["JOURNAL_NOT_INITIALIZED", { filename: missing }]);
    expect(notCreated.message).toContain(missing);
    expect(notCreated.message).toContain("create");
    const readOnly = await refusalOf({ filename: missing, readOnly: true });
    expect([readOnly.code, readOnly.details]).toEqual(["JOURNAL_NOT_INITIALIZED", { filename: missing }]);
    expect(readOnly.message).toContain("read-only");
    expect(existsSync(missing)).toBe(false);
    const empty = directory.file("empty.db");
    writeFileSync(empty, "");
    const refused = await refusalOf({ filename: empty });
    expect([refused.code, refused.details]).toEqual(["JOURNAL_NOT_INITIALIZED", { filename: empty }]);
    expect(refused.message).toContain(empty);
  });

  it("CONFIG_INVALID lists every problem with the options in details.problems", async () => {
    const filename = directory.file("journal.db");
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{}, ["pass exactly one of filename or database"]],
      [{ filename, database: new Database(":memory:") }, ["pass exactly one of filename or database"]],
      [{ filename: 42 }, ["filename must be a string"]],
      [{ filename, synchronous: "off" }, ['synchronous must be "full" or "normal"']],
      [{ filename, busyTimeoutMs: -1 }, ["busyTimeoutMs must be a non-negative integer"]],
      [{ filename, busyTimeoutMs: 1.5 }, ["busyTimeoutMs must be a non-negative integer"]],
      [{ filename, busyTimeoutMs: "5" }, ["busyTimeoutMs must be a non-negative integer"]],
      [{ filename, integrityCheck: "full" }, ['integrityCheck must be "quick" or "none"']],
      [{ filename, headWitness: "sidecar" }, ['headWitness must be "file", "adopt", "new" or "none"']],
      [{ filename, create: "yes" }, ["create must be a boolean"]],
      [{ filename, readOnly: 1 }, ["readOnly must be a boolean"]],
      [{ filename, readOnly: true, create: true }, ["a read-only journal cannot create"]],
      [
        { filename, synchronous: "off", integrityCheck: "full", create: "yes" },
        ['synchronous must be "full" or "normal"', 'integrityCheck must be "quick" or "none"', "create must be a boolean"],
      ],
    ];
    for (const [options, problems] of cases) {
      const refused = await refusalOf(options as unknown as SqliteJournalOptions);
      expect([refused.code, refused.details], JSON.stringify(options)).toEqual(["CONFIG_INVALID", { problems }]);
      expect(refused.message).toContain(problems[0]);
    }
    expect(existsSync(filename)).toBe(false);
  });
});
