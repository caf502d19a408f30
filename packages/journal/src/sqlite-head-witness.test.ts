import { spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, copyFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { YokeError, type RunScope } from "@yoke/protocol";
import { eventDraft, rejectionOf, runStartedDraft } from "@yoke/testkit";
import Database from "better-sqlite3";
import { beforeEach, describe, expect, it } from "vitest";
import { tempDirectoryPerTest } from "./__fixtures__/temp-files.js";
import { HeadWitness } from "./head-witness.js";
import { createSqliteJournal, type SqliteJournalOptions } from "./sqlite-journal.js";

const scope: RunScope = { tenantId: "tenant_a", runId: "run_1" };
const directory = tempDirectoryPerTest("yoke-witness-");
const notes = (from: number, count: number) => Array.from({ length: count }, (_, index) => eventDraft("test.noted", { index: from + index }));

async function writeRun(filename: string, options: Partial<SqliteJournalOptions> = {}): Promise<void> {
  const journal = await createSqliteJournal({ filename, ...options } as SqliteJournalOptions);
  await journal.append(scope, 0, [runStartedDraft()]);
  await journal.append(scope, 1, notes(1, 3));
  await journal.close();
}

/** The code an open fails with, or undefined when it opens. */
async function codeOfOpen(options: SqliteJournalOptions): Promise<string | undefined> {
  try {
    await (await createSqliteJournal(options)).close();
    return undefined;
  } catch (error) {
    if (!YokeError.isInstance(error)) throw error;
    return error.code;
  }
}

describe("sqlite journal: head witness", () => {
  it("keeps every run's acknowledged head beside the file and names it", async () => {
    const filename = directory.file("journal.db");
    const journal = await createSqliteJournal({ filename });
    expect(journal.headWitnessPath).toBe(`${filename}-head`);
    await journal.append(scope, 0, [runStartedDraft()]);
    const { headHash } = await journal.append(scope, 1, notes(1, 2));
    await journal.close();
    const witness = HeadWitness.read(`${filename}-head`)!;
    expect(witness.expected(scope)).toEqual({ length: 3, hash: headHash });
    witness.close();
  });

  it("refuses a journal whose witness was deleted (JOURNAL_WITNESS_INVALID), and adopts it as it is when asked", async () => {
    const filename = directory.file("journal.db");
    await writeRun(filename);
    rmSync(`${filename}-head`);
    expect(await codeOfOpen({ filename })).toBe("JOURNAL_WITNESS_INVALID");
    const adopted = await createSqliteJournal({ filename, headWitness: "adopt" });
    expect(await adopted.verify(scope)).toMatchObject({ ok: true, events: 4 });
    await adopted.close();
    expect(await codeOfOpen({ filename })).toBeUndefined();
  });

  it("refuses another journal's witness", async () => {
    const first = directory.file("first.db");
    const second = directory.file("second.db");
    await writeRun(first);
    await writeRun(second);
    copyFileSync(`${first}-head`, `${second}-head`);
    expect(await codeOfOpen({ filename: second })).toBe("JOURNAL_WITNESS_INVALID");
  });

  it("ignores a witness line a crash cut short, and refuses a damaged one", async () => {
    const filename = directory.file("journal.db");
    await writeRun(filename);
    appendFileSync(`${filename}-head`, '["tenant_a","run_1",9');
    expect(await codeOfOpen({ filename })).toBeUndefined();
    writeFileSync(`${filename}-head`, `${readFileSync(`${filename}-head`, "utf8").split("\n")[0]}\nnot json\n`);
    expect(await codeOfOpen({ filename })).toBe("JOURNAL_WITNESS_INVALID");
  });

  it("detects an event rewritten at the witnessed head: witness_mismatch in verify, JOURNAL_WITNESS_INVALID on open", async () => {
    const filename = directory.file("journal.db");
    await writeRun(filename);
    const journal = await createSqliteJournal({ filename });
    const db = new Database(filename);
    db.prepare("UPDATE events SET hash = ? WHERE seq = 3").run("f".repeat(64));
    db.close();
    expect(await journal.verify(scope)).toMatchObject({ ok: false, firstBadSeq: 3 });
    await journal.close();
    expect(await codeOfOpen({ filename })).toBe("JOURNAL_WITNESS_INVALID");
  });

  it("sees rows another connection deleted after open: head, a whole read and verify all report the loss", async () => {
    const filename = directory.file("journal.db");
    await writeRun(filename);
    const journal = await createSqliteJournal({ filename });
    const db = new Database(filename);
    db.prepare("DELETE FROM events WHERE seq >= 1").run();
    db.close();
    expect(await journal.verify(scope)).toMatchObject({ ok: false, reason: "truncated", firstBadSeq: 1 });
    expect((await rejectionOf(journal.head(scope)))?.code).toBe("JOURNAL_TRUNCATED");
    expect(
      (
        await rejectionOf(
          (async () => {
            for await (const event of journal.read(scope)) void event;
          })(),
        )
      )?.code,
    ).toBe("JOURNAL_TRUNCATED");
    // Appending over the gap would re-do acknowledged work: refused too.
    expect((await rejectionOf(journal.append(scope, 1, notes(1, 1))))?.code).toBe("JOURNAL_TRUNCATED");
    await journal.close();
  });

  it("adopts a journal written before witnesses existed on first open", async () => {
    const filename = directory.file("sqlite-v1.db");
    copyFileSync(join(import.meta.dirname, "__fixtures__", "journal", "sqlite-v1.db"), filename);
    const journal = await createSqliteJournal({ filename });
    const fixture = { tenantId: "tenant_fixture", runId: "run_fixture_1" };
    expect(await journal.verify(fixture)).toMatchObject({ ok: true, events: 4 });
    await journal.close();
    const witness = HeadWitness.read(`${filename}-head`)!;
    expect(witness.expected(fixture)?.length).toBe(4);
    witness.close();
  });

  it("compacts to one line per run past its size limit, and reads the same heads back", async () => {
    const path = directory.file("heads");
    const witness = HeadWitness.create(path, "journal-1", [], 512);
    for (let length = 1; length <= 40; length++) {
      witness.record({ tenantId: "t", runId: `run_${length % 3}` }, { length, hash: `h${length}` }, false);
    }
    expect(statSync(path).size).toBeLessThan(1024);
    const reread = HeadWitness.read(path)!;
    expect([...reread.entries()].map((entry) => [entry.scope.runId, entry.head.length]).sort()).toEqual([
      ["run_0", 39],
      ["run_1", 40],
      ["run_2", 38],
    ]);
    witness.close();
    reread.close();
  });

  it("with headWitness: none, keeps no sidecar", async () => {
    const filename = directory.file("journal.db");
    await writeRun(filename, { headWitness: "none" });
    expect(existsSync(`${filename}-head`)).toBe(false);
  });
});

describe("sqlite journal: creation", () => {
  it("creates a missing file by default, never with create: false", async () => {
    expect(await codeOfOpen({ filename: directory.file("missing.db"), create: false })).toBe("JOURNAL_NOT_INITIALIZED");
    expect(existsSync(directory.file("missing.db"))).toBe(false);
    expect(await codeOfOpen({ filename: directory.file("new.db") })).toBeUndefined();
  });

  it("refuses a file truncated to 0 bytes as JOURNAL_TRUNCATED, even with create: true, when its witness records events", async () => {
    const filename = directory.file("journal.db");
    await writeRun(filename);
    writeFileSync(filename, "");
    expect(await codeOfOpen({ filename })).toBe("JOURNAL_TRUNCATED");
    expect(await codeOfOpen({ filename, create: true })).toBe("JOURNAL_TRUNCATED");
    expect(statSync(filename).size).toBe(0);
  });
});

describe("sqlite journal: read-only", () => {
  it("verifies and reads without writing a byte; appends and leases are JOURNAL_READ_ONLY", async () => {
    const filename = directory.file("journal.db");
    await writeRun(filename);
    const before = readFileSync(filename);
    const witnessBefore = readFileSync(`${filename}-head`);
    const journal = await createSqliteJournal({ filename, readOnly: true });
    expect(journal.readOnly).toBe(true);
    expect(await journal.verify(scope)).toMatchObject({ ok: true, events: 4 });
    let read = 0;
    for await (const event of journal.read(scope)) read += event.seq >= 0 ? 1 : 0;
    expect(read).toBe(4);
    expect((await rejectionOf(journal.append(scope, 4, notes(4, 1))))?.code).toBe("JOURNAL_READ_ONLY");
    expect((await rejectionOf(journal.leases.acquire(scope, { ownerId: "auditor", ttlMs: 1_000 })))?.code).toBe("JOURNAL_READ_ONLY");
    await journal.close();
    expect(readFileSync(filename).equals(before)).toBe(true);
    expect(readFileSync(`${filename}-head`).equals(witnessBefore)).toBe(true);
  });

  it("still detects a loss, and never creates a file", async () => {
    const filename = directory.file("journal.db");
    await writeRun(filename);
    const db = new Database(filename);
    db.prepare("DELETE FROM events WHERE seq = 3").run();
    db.close();
    expect(await codeOfOpen({ filename, readOnly: true })).toBe("JOURNAL_TRUNCATED");
    expect(await codeOfOpen({ filename: directory.file("absent.db"), readOnly: true })).toBe("JOURNAL_NOT_INITIALIZED");
    expect(existsSync(directory.file("absent.db"))).toBe(false);
  });
});

// A real auditor: another user (nobody), who may read the journal's directory but not write
// it, so SQLite cannot create its `-shm` there. Needs root to switch users: without it each test
// is reported skipped with the reason (never dropped silently), and under CI it fails instead.
const isRoot = process.getuid?.() === 0;
const NOT_ROOT = `needs root to run the auditor as user nobody (uid 65534); running as uid ${String(process.getuid?.())}. CI runs as root`;
describe("sqlite journal: read-only, by a user who may not write the directory", () => {
  beforeEach((context) => {
    if (isRoot) return;
    if (process.env.CI !== undefined) expect.fail(`under CI this suite must run: ${NOT_ROOT}`);
    context.skip(NOT_ROOT);
  });
  const NOBODY = 65534;
  const audit = (filename: string): string => {
    chmodSync(dirname(filename), 0o755);
    const fixtures = join(import.meta.dirname, "__fixtures__");
    const child = spawnSync(
      process.execPath,
      ["--no-warnings", "--import", join(fixtures, "register-ts.mjs"), join(fixtures, "audit-worker.ts"), filename, scope.tenantId, scope.runId],
      { cwd: join(import.meta.dirname, ".."), uid: NOBODY, gid: NOBODY, encoding: "utf8", timeout: 60_000 },
    );
    expect(child.stderr).toBe("");
    return child.stdout.trim();
  };

  it("verifies a closed journal without creating a file", async () => {
    const filename = directory.file("journal.db");
    await writeRun(filename);
    expect(existsSync(`${filename}-wal`)).toBe(false);
    const files = readdirSync(dirname(filename)).sort();
    expect(JSON.parse(audit(filename))).toMatchObject({ ok: true, events: 4 });
    expect(readdirSync(dirname(filename)).sort()).toEqual(files);
  });

  it("verifies a journal a writer has open, with its -wal", async () => {
    const filename = directory.file("journal.db");
    const writer = await createSqliteJournal({ filename });
    try {
      await writer.append(scope, 0, [runStartedDraft()]);
      await writer.append(scope, 1, notes(1, 5));
      expect(JSON.parse(audit(filename))).toMatchObject({ ok: true, events: 6 });
    } finally {
      await writer.close();
    }
  });

  it("still checks the head witness: a deleted tail is JOURNAL_TRUNCATED", async () => {
    const filename = directory.file("journal.db");
    await writeRun(filename);
    const db = new Database(filename);
    db.prepare("DELETE FROM events WHERE seq = 3").run();
    db.close();
    expect(audit(filename)).toMatch(/^ERR JOURNAL_TRUNCATED /);
  });
});
