import { closeSync, openSync, readFileSync, statSync, truncateSync, writeFileSync, writeSync } from "node:fs";
import { YokeError, type JournalEvent, type RunScope, type YokeErrorCode } from "@yoke/protocol";
import { eventDraft, runStartedDraft } from "@yoke/testkit";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDirectory } from "./__fixtures__/temp-files.js";
import { computeEventHash } from "./chain.js";
import { createSqliteJournal } from "./sqlite-journal.js";
import { SQLITE_JOURNAL_FORMAT, SQLITE_JOURNAL_SCHEMA_VERSION } from "./sqlite-migrations.js";

const scope: RunScope = { tenantId: "tenant_a", runId: "run_1" };
const EVENTS = 400;

let directory: ReturnType<typeof tempDirectory>;
let filename: string;

beforeEach(() => {
  directory = tempDirectory();
  filename = directory.file("journal.db");
});
afterEach(() => directory.remove());

/** Writes a run of EVENTS events, each with a findable marker, and closes the file cleanly. */
async function writeRun(): Promise<readonly JournalEvent[]> {
  const journal = await createSqliteJournal({ filename });
  const drafts = [
    runStartedDraft(),
    ...Array.from({ length: EVENTS - 1 }, (_, index) =>
      eventDraft("test.noted", { marker: `MARKER_${String(index + 1).padStart(5, "0")}`, padding: "p".repeat(120) }),
    ),
  ];
  const { events } = await journal.append(scope, 0, drafts);
  await journal.close();
  return events;
}

/** Raw SQL against the file, as an attacker or a buggy tool would. */
function tamper(sql: string, ...params: unknown[]): void {
  const db = new Database(filename);
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

/** Opens the file and reads the run: what happened, and the events seen before it happened. */
async function openAndRead(options: { create?: boolean } = {}): Promise<{ events: JournalEvent[]; error?: YokeError; verify?: unknown }> {
  const events: JournalEvent[] = [];
  let journal: Awaited<ReturnType<typeof createSqliteJournal>> | undefined;
  try {
    journal = await createSqliteJournal({ filename, ...options });
    for await (const event of journal.read(scope)) events.push(event);
    return { events, verify: await journal.verify(scope) };
  } catch (error) {
    if (!YokeError.isInstance(error)) throw error;
    return { events, error };
  } finally {
    await journal?.close();
  }
}

async function withJournal<T>(use: (journal: Awaited<ReturnType<typeof createSqliteJournal>>) => Promise<T>): Promise<T> {
  const journal = await createSqliteJournal({ filename });
  try {
    return await use(journal);
  } finally {
    await journal.close();
  }
}

function expectCode(outcome: { error?: YokeError }, codes: readonly YokeErrorCode[]): void {
  expect(outcome.error, "expected the damage to be reported").toBeDefined();
  expect(codes).toContain(outcome.error?.code);
}

describe("sqlite journal: tampered rows", () => {
  it("(i) an edited data column breaks the chain at exactly that event", async () => {
    await writeRun();
    tamper("UPDATE events SET data = ? WHERE seq = 7", JSON.stringify({ marker: "MARKER_00007", padding: "forged" }));
    const outcome = await openAndRead();
    expectCode(outcome, ["JOURNAL_CHAIN_BROKEN"]);
    expect(outcome.error?.details).toMatchObject({ seq: 7, reason: "hash_mismatch" });
    expect(outcome.events.map((event) => event.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(await withJournal((journal) => journal.verify(scope))).toMatchObject({
      ok: false,
      firstBadSeq: 7,
      reason: "hash_mismatch",
    });
  });

  it("(ii) a consistently re-hashed event is caught by its successor's prevHash", async () => {
    const events = await writeRun();
    const original = events[7] as JournalEvent;
    const forged = { ...original, data: { ...original.data, padding: "forged" } };
    const { hash: _old, ...unsealed } = forged;
    tamper("UPDATE events SET data = ?, hash = ? WHERE seq = 7", JSON.stringify(forged.data), computeEventHash(unsealed));
    const verdict = await withJournal((journal) => journal.verify(scope));
    expect(verdict).toMatchObject({ ok: false, firstBadSeq: 8, reason: "prev_hash_mismatch" });
    const outcome = await openAndRead();
    expectCode(outcome, ["JOURNAL_CHAIN_BROKEN"]);
    expect(outcome.events).toHaveLength(8);
  });

  it("(iii) a deleted middle event is a sequence gap, also when reading from after it", async () => {
    await writeRun();
    tamper("DELETE FROM events WHERE seq = 300");
    expect(await withJournal((journal) => journal.verify(scope))).toMatchObject({
      ok: false,
      firstBadSeq: 300,
      reason: "sequence_gap",
    });
    const outcome = await openAndRead();
    expectCode(outcome, ["JOURNAL_CHAIN_BROKEN"]);
    expect(outcome.events).toHaveLength(300);
    const fromAfter = await withJournal(async (journal) => {
      const seen: number[] = [];
      try {
        for await (const event of journal.read(scope, { fromSeq: 301 })) seen.push(event.seq);
      } catch (error) {
        return { seen, error };
      }
      return { seen };
    });
    expect(fromAfter.seen).toEqual([]);
    expect(fromAfter.error).toMatchObject({ code: "JOURNAL_CHAIN_BROKEN", details: { seq: 300, reason: "sequence_gap" } });
  });

  it("(vii) malformed JSON in a data column is JOURNAL_CORRUPT on read and 'malformed' in verify", async () => {
    await writeRun();
    tamper("UPDATE events SET data = ? WHERE seq = 12", '{"marker": "MARKER_00012", "padding": ');
    const outcome = await openAndRead();
    expectCode(outcome, ["JOURNAL_CORRUPT"]);
    expect(outcome.events).toHaveLength(12);
    expect(await withJournal((journal) => journal.verify(scope))).toMatchObject({
      ok: false,
      firstBadSeq: 12,
      reason: "malformed",
    });
  });

  it("a row moved to another tenant is neither read by it nor left unnoticed in its own run", async () => {
    await writeRun();
    tamper("UPDATE events SET tenant_id = 'tenant_b' WHERE seq = 5");
    expect(await withJournal((journal) => journal.verify({ tenantId: "tenant_b", runId: "run_1" }))).toMatchObject({
      ok: false,
      firstBadSeq: 0,
    });
    expect(await withJournal((journal) => journal.verify(scope))).toMatchObject({ ok: false, firstBadSeq: 5, reason: "sequence_gap" });
  });
});

describe("sqlite journal: damaged files", () => {
  it("(iv) a truncated file is JOURNAL_CORRUPT, wherever it is cut", async () => {
    const events = await writeRun();
    const size = statSync(filename).size;
    const pristine = readFileSync(filename);
    expect(size).toBeGreaterThan(8 * 4096);
    for (const cut of [60, 4096, Math.floor(size / 2), size - 4096, size - 100]) {
      writeFileSync(filename, pristine);
      truncateSync(filename, cut);
      const outcome = await openAndRead();
      // Never a full, valid read of a file that lost bytes.
      expect(outcome.error, `cut at ${cut} of ${size}`).toBeDefined();
      expect(["JOURNAL_CORRUPT", "JOURNAL_CHAIN_BROKEN"]).toContain(outcome.error?.code);
      expect(outcome.events.length).toBeLessThan(events.length);
    }
  });

  it("(v) garbage written into the middle of the file is reported, never read as valid", async () => {
    const events = await writeRun();
    const pristine = readFileSync(filename);
    const size = pristine.length;
    const marker = pristine.indexOf("MARKER_00200");
    expect(marker).toBeGreaterThan(0);
    const offsets = [marker, Math.floor(size / 2), Math.floor(size / 4096 / 2) * 4096, 4096 * 3 + 8];
    for (const offset of offsets) {
      writeFileSync(filename, pristine);
      const fd = openSync(filename, "r+");
      writeSync(fd, Buffer.alloc(48, 0xa5), 0, 48, offset);
      closeSync(fd);
      const outcome = await openAndRead();
      if (outcome.error) {
        expect(["JOURNAL_CORRUPT", "JOURNAL_CHAIN_BROKEN"]).toContain(outcome.error.code);
      } else {
        // The garbage landed in unused space: the events must be exactly the originals.
        expect(outcome.events).toEqual(events);
        expect(outcome.verify).toMatchObject({ ok: true, events: EVENTS });
      }
    }
    writeFileSync(filename, pristine);
    const fd = openSync(filename, "r+");
    writeSync(fd, Buffer.alloc(12, 0xff), 0, 12, marker);
    closeSync(fd);
    const hit = await openAndRead();
    expectCode(hit, ["JOURNAL_CORRUPT", "JOURNAL_CHAIN_BROKEN"]);
  });

  it("(vi) a text file is JOURNAL_CORRUPT", async () => {
    writeFileSync(filename, "this is a plain text file, not a database\n".repeat(200));
    expectCode(await openAndRead(), ["JOURNAL_CORRUPT"]);
    expect(readFileSync(filename, "utf8")).toMatch(/^this is a plain text file/);
  });

  it("an empty file is JOURNAL_NOT_INITIALIZED and left empty, unless the caller asks for creation", async () => {
    writeFileSync(filename, "");
    expectCode(await openAndRead(), ["JOURNAL_NOT_INITIALIZED"]);
    expect(statSync(filename).size).toBe(0);
    expect(await openAndRead({ create: true })).toEqual({ events: [], verify: { ok: true, events: 0, headHash: "0".repeat(64), chain: "sha256", keyIds: [] } });
  });

  it("a SQLite database that is not a Yoke journal is JOURNAL_CORRUPT and left untouched", async () => {
    tamper("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)");
    expectCode(await openAndRead(), ["JOURNAL_CORRUPT"]);
    const db = new Database(filename);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
    db.close();
    expect(tables).toEqual([{ name: "customers" }]);
  });
});

describe("sqlite journal: schema version", () => {
  it("records its layout version and format marker in the file", async () => {
    await writeRun();
    const db = new Database(filename);
    const meta = Object.fromEntries(
      (db.prepare("SELECT key, value FROM yoke_meta").all() as Array<{ key: string; value: string }>).map((row) => [row.key, row.value]),
    );
    const userVersion = db.pragma("user_version", { simple: true });
    const versions = db.prepare("SELECT DISTINCT schema_version FROM events").all();
    db.close();
    expect(userVersion).toBe(SQLITE_JOURNAL_SCHEMA_VERSION);
    expect(meta).toEqual({ format: SQLITE_JOURNAL_FORMAT, schema_version: String(SQLITE_JOURNAL_SCHEMA_VERSION), head_witness: expect.any(String) });
    expect(versions).toEqual([{ schema_version: 1 }]);
  });

  it("refuses a file whose user_version is newer with JOURNAL_SCHEMA_UNSUPPORTED", async () => {
    await writeRun();
    tamper(`PRAGMA user_version = ${SQLITE_JOURNAL_SCHEMA_VERSION + 1}`);
    const outcome = await openAndRead();
    expectCode(outcome, ["JOURNAL_SCHEMA_UNSUPPORTED"]);
    expect(outcome.error?.details).toMatchObject({ fileVersion: SQLITE_JOURNAL_SCHEMA_VERSION + 1 });
  });

  it("refuses a file whose recorded schema_version is newer with JOURNAL_SCHEMA_UNSUPPORTED", async () => {
    await writeRun();
    tamper("UPDATE yoke_meta SET value = ? WHERE key = 'schema_version'", String(SQLITE_JOURNAL_SCHEMA_VERSION + 1));
    expectCode(await openAndRead(), ["JOURNAL_SCHEMA_UNSUPPORTED"]);
  });

  it("reopens a file without running migrations again", async () => {
    await writeRun();
    const db = new Database(filename);
    const before = db.prepare("SELECT name FROM kysely_migration ORDER BY name").all();
    db.close();
    expect(before).toEqual([{ name: "0001_events" }, { name: "0002_idempotency_records" }, { name: "0003_run_leases" }, { name: "0004_lease_tokens" }]);
    expect((await openAndRead()).verify).toMatchObject({ ok: true, events: EVENTS });
  });
});

describe("sqlite journal: the integrity check on open", () => {
  /** Overwrites the header of the B-tree page holding MARKER_00200. */
  function damagePage(): void {
    const bytes = readFileSync(filename);
    const pageSize = bytes.readUInt16BE(16);
    const page = Math.floor(bytes.indexOf("MARKER_00200") / pageSize) * pageSize;
    const fd = openSync(filename, "r+");
    writeSync(fd, Buffer.from([0x0d, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), 0, 8, page);
    closeSync(fd);
  }

  it('refuses a damaged file at open by default; with integrityCheck: "none" it opens and the damage surfaces on read', async () => {
    await writeRun();
    damagePage();
    await expect(createSqliteJournal({ filename })).rejects.toMatchObject({ code: "JOURNAL_CORRUPT" });
    const journal = await createSqliteJournal({ filename, integrityCheck: "none" });
    try {
      const read = async () => {
        for await (const _event of journal.read(scope)) {
          // drain
        }
      };
      await expect(read()).rejects.toMatchObject({ code: "JOURNAL_CORRUPT" });
    } finally {
      await journal.close();
    }
  });

  it('opens a sound file the same way with integrityCheck: "none", and refuses an unknown value', async () => {
    const events = await writeRun();
    expect((await openAndRead()).events).toEqual(events);
    const journal = await createSqliteJournal({ filename, integrityCheck: "none" });
    expect(await journal.verify(scope)).toMatchObject({ ok: true, events: EVENTS });
    await journal.close();
    await expect(createSqliteJournal({ filename, integrityCheck: "full" as "quick" })).rejects.toMatchObject({ code: "CONFIG_INVALID" });
  });
});
