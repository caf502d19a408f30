import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { EVENT_SCHEMA_VERSION, canonicalJson, type JournalKeyProvider, type RunScope } from "@yoke/protocol";
import { eventDraft, rejectionOf, runStartedDraft } from "@yoke/testkit";
import { journalContractTests } from "@yoke/testkit/contracts";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { refuseWriteAtFile } from "./__fixtures__/refuse-write.js";
import { tempDirectory } from "./__fixtures__/temp-files.js";
import { KEYED_GOLDEN_HASH, testKeyMaterial, testKeys } from "./__fixtures__/test-keys.js";
import { computeEventHash, computeEventHmac } from "./chain.js";
import { createSqliteJournal, type SqliteJournal } from "./sqlite-journal.js";

const contract = journalContractTests(
  "sqlite, keyed",
  async () => {
    const directory = tempDirectory();
    const journal = await createSqliteJournal({ filename: directory.file("journal.db"), keys: testKeys().provider });
    return { journal, cleanup: () => directory.remove(), refuseWriteAt: refuseWriteAtFile(directory.file("journal.db")) };
  },
  { goldenRunStartedHash: KEYED_GOLDEN_HASH, chain: "hmac-sha256" },
);
// A literal describe and it.for, so `vitest list` (a static read of this file) finds the suite.
describe("JournalV1 contract: sqlite, keyed", () => {
  it.for(contract.tests)("$title", (test) => test.run());
});

const scope: RunScope = { tenantId: "tenant_a", runId: "run_1" };
const notes = (count: number) => Array.from({ length: count }, (_, index) => eventDraft("test.noted", { index }));

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

interface Row {
  seq: number;
  type: string;
  at: number;
  causation_id: string | null;
  data: string;
  prev_hash: string;
  hash: string;
}

describe("sqlite journal, keyed", () => {
  let directory: ReturnType<typeof tempDirectory>;
  let filename: string;
  const opened: SqliteJournal[] = [];
  const open = async (keys?: JournalKeyProvider) => {
    const journal = await createSqliteJournal({ filename, ...(keys === undefined ? {} : { keys }) });
    opened.push(journal);
    return journal;
  };

  it("refuses an append whose key arrived after close with JOURNAL_CLOSED, and stores nothing", async () => {
    const journal = await open(testKeys().provider);
    await journal.append(scope, 0, [runStartedDraft()]);
    // The append waits for its sealing key; the journal closes meanwhile.
    const pending = journal.append(scope, 1, notes(1));
    await journal.close();
    expect((await rejectionOf(pending)).code).toBe("JOURNAL_CLOSED");
    expect(raw((db) => db.prepare("SELECT count(*) AS n FROM events").get())).toEqual({ n: 1 });
  });

  /** Raw access to the file, as anyone who can write it has. */
  const raw = <T>(use: (db: Database.Database) => T): T => {
    const db = new Database(filename);
    try {
      return use(db);
    } finally {
      db.close();
    }
  };
  const rows = (): Row[] =>
    raw(
      (db) =>
        db
          .prepare("SELECT seq, type, at, causation_id, data, prev_hash, hash FROM events WHERE tenant_id = ? AND run_id = ? ORDER BY seq")
          .all(scope.tenantId, scope.runId) as Row[],
    );
  const envelopeOf = (row: Omit<Row, "hash">) => ({
    schemaVersion: EVENT_SCHEMA_VERSION,
    tenantId: scope.tenantId,
    runId: scope.runId,
    seq: row.seq,
    type: row.type,
    at: row.at,
    causationId: row.causation_id,
    data: JSON.parse(row.data) as Record<string, never>,
    prevHash: row.prev_hash,
  });
  /** Appends a row after the run's head whose hash is whatever `hashOf` computes. */
  const appendRaw = (hashOf: (envelope: ReturnType<typeof envelopeOf>) => string): number => {
    const head = rows().at(-1)!;
    const forged = {
      seq: head.seq + 1,
      type: "action.committed",
      at: head.at + 1,
      causation_id: null,
      data: canonicalJson({ actionId: "act_1", attemptId: "att_1" }),
      prev_hash: head.hash,
    };
    const hash = hashOf(envelopeOf(forged));
    raw((db) =>
      db
        .prepare(
          "INSERT INTO events (tenant_id, run_id, seq, type, at, causation_id, data, prev_hash, hash, schema_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .run(scope.tenantId, scope.runId, forged.seq, forged.type, forged.at, null, forged.data, forged.prev_hash, hash, EVENT_SCHEMA_VERSION),
    );
    return forged.seq;
  };

  beforeEach(() => {
    directory = tempDirectory();
    filename = directory.file("journal.db");
  });
  afterEach(async () => {
    for (const journal of opened.splice(0)) await journal.close();
    directory.remove();
  });

  it("rejects a forged row with a valid plain SHA-256 hash on read, verify and append, naming its seq", async () => {
    const keys = testKeys();
    const writer = await open(keys.provider);
    await writer.append(scope, 0, [runStartedDraft(), ...notes(2)]);
    const forgedSeq = appendRaw((envelope) => computeEventHash(envelope));
    expect(forgedSeq).toBe(3);
    for (const journal of [writer, await open(testKeys().provider)]) {
      const error = await rejectionOf(collect(journal.read(scope)));
      expect(error).toMatchObject({ code: "JOURNAL_CHAIN_BROKEN", details: { seq: 3, reason: "unkeyed" } });
      expect(await journal.verify(scope)).toMatchObject({ ok: false, firstBadSeq: 3, reason: "unkeyed" });
      expect(await collect(journal.read(scope, { toSeq: 3 }))).toHaveLength(3);
    }
    // A keyed writer does not extend a chain whose head it could not have sealed.
    expect(await rejectionOf(writer.append(scope, 4, notes(1)))).toMatchObject({ code: "JOURNAL_CHAIN_BROKEN", details: { seq: 3, reason: "unkeyed" } });
  });

  it("is what an unkeyed journal would have accepted: the defect keys close", async () => {
    const writer = await open();
    await writer.append(scope, 0, [runStartedDraft(), ...notes(2)]);
    appendRaw((envelope) => computeEventHash(envelope));
    expect(await writer.verify(scope)).toMatchObject({ ok: true, events: 4, chain: "sha256" });
  });

  it("rejects a row sealed with other key material under the tenant's key id, or under a key id it does not have", async () => {
    const writer = await open(testKeys().provider);
    await writer.append(scope, 0, [runStartedDraft(), ...notes(2)]);
    appendRaw((envelope) => computeEventHmac(envelope, { keyId: "k1", key: testKeyMaterial("tenant_b", "k1") }));
    expect(await writer.verify(scope)).toMatchObject({ ok: false, firstBadSeq: 3, reason: "hash_mismatch" });
    expect(await rejectionOf(collect(writer.read(scope)))).toMatchObject({ code: "JOURNAL_CHAIN_BROKEN", details: { seq: 3, reason: "hash_mismatch" } });
    raw((db) => db.prepare("DELETE FROM events WHERE seq = 3").run());
    appendRaw((envelope) => computeEventHmac(envelope, { keyId: "k9", key: Buffer.alloc(32, 9) }));
    expect(await writer.verify(scope)).toMatchObject({ ok: false, firstBadSeq: 3, reason: "key_mismatch" });
    expect(await rejectionOf(collect(writer.read(scope, { fromSeq: 2 })))).toMatchObject({
      code: "JOURNAL_CHAIN_BROKEN",
      details: { seq: 3, reason: "key_mismatch" },
    });
  });

  it("rejects an edited event re-sealed with the plain hash, and the events after it", async () => {
    const writer = await open(testKeys().provider);
    await writer.append(scope, 0, [runStartedDraft(), ...notes(3)]);
    const row = rows()[1]!;
    const data = canonicalJson({ index: 99 });
    const hash = computeEventHash({ ...envelopeOf({ ...row, data }) });
    raw((db) => db.prepare("UPDATE events SET data = ?, hash = ? WHERE seq = 1").run(data, hash));
    expect(await (await open(testKeys().provider)).verify(scope)).toMatchObject({ ok: false, firstBadSeq: 1, reason: "unkeyed" });
  });

  it("verifies a run sealed under k1 after the provider rotates to k2, in a fresh journal", async () => {
    const keys = testKeys("k1");
    const writer = await open(keys.provider);
    await writer.append(scope, 0, [runStartedDraft(), ...notes(2)]);
    keys.rotate("k2");
    await writer.append(scope, 3, notes(2));
    const reader = await open(keys.provider);
    expect(await reader.verify(scope)).toMatchObject({ ok: true, events: 5, chain: "hmac-sha256", keyIds: ["k1", "k2"] });
    expect((await collect(reader.read(scope))).map((event) => event.hash.split(":")[1])).toEqual(["k1", "k1", "k1", "k2", "k2"]);
    expect((await collect(reader.read(scope, { fromSeq: 4 }))).map((event) => event.seq)).toEqual([4]);
    keys.revoke("k1");
    const revoked = await open(keys.provider);
    expect(await revoked.verify(scope)).toMatchObject({ ok: false, firstBadSeq: 0, reason: "key_mismatch" });
  });

  it("turns a provider failure into JOURNAL_KEY_UNAVAILABLE on append, read and verify", async () => {
    const writer = await open(testKeys().provider);
    await writer.append(scope, 0, [runStartedDraft()]);
    const down: JournalKeyProvider = {
      keyFor: () => {
        throw new Error("KMS down");
      },
      keyById: async () => Promise.reject(new Error("KMS down")),
    };
    const journal = await open(down);
    expect(await rejectionOf(journal.append(scope, 1, notes(1)))).toMatchObject({ code: "JOURNAL_KEY_UNAVAILABLE" });
    expect(await rejectionOf(collect(journal.read(scope)))).toMatchObject({ code: "JOURNAL_KEY_UNAVAILABLE", details: { keyId: "k1" } });
    expect(await rejectionOf(journal.verify(scope))).toMatchObject({ code: "JOURNAL_KEY_UNAVAILABLE" });
    expect(rows()).toHaveLength(1);
  });

  it("an unkeyed journal does not vouch for a keyed file: key_required, JOURNAL_KEY_UNAVAILABLE", async () => {
    const writer = await open(testKeys().provider);
    await writer.append(scope, 0, [runStartedDraft()]);
    const unkeyed = await open();
    expect(await unkeyed.verify(scope)).toMatchObject({ ok: false, firstBadSeq: 0, reason: "key_required" });
    expect(await rejectionOf(collect(unkeyed.read(scope)))).toMatchObject({ code: "JOURNAL_KEY_UNAVAILABLE", details: { seq: 0, reason: "key_required" } });
  });

  it("a keyed journal refuses the unkeyed fixture journal, which still verifies unkeyed", async () => {
    copyFileSync(join(import.meta.dirname, "__fixtures__", "journal", "sqlite-v1.db"), filename);
    const fixtureScope = { tenantId: "tenant_fixture", runId: "run_fixture_1" };
    expect(await (await open(testKeys().provider)).verify(fixtureScope)).toMatchObject({ ok: false, firstBadSeq: 0, reason: "unkeyed" });
    expect(await (await open()).verify(fixtureScope)).toMatchObject({ ok: true, events: 4, chain: "sha256" });
  });
});
