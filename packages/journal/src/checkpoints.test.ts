import { generateKeyPairSync } from "node:crypto";
import { canonicalJson, type JournalV1, type RunScope } from "@yoke/protocol";
import { eventDraft, rejectionOf, runStartedDraft } from "@yoke/testkit";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDirectory } from "./__fixtures__/temp-files.js";
import { testKeys } from "./__fixtures__/test-keys.js";
import { computeEventHash } from "./chain.js";
import { checkpointMessage, signCheckpoint, verifyCheckpoint } from "./checkpoints.js";
import { createMemoryJournal } from "./memory-journal.js";
import { createSqliteJournal } from "./sqlite-journal.js";

const scope: RunScope = { tenantId: "tenant_a", runId: "run_1" };
const notes = (count: number) => Array.from({ length: count }, (_, index) => eventDraft("test.noted", { index }));
const { privateKey, publicKey } = generateKeyPairSync("ed25519");

describe("checkpoints", () => {
  it("signs a documented, versioned message", () => {
    expect(checkpointMessage({ tenantId: "t", runId: "r", seq: 3, headHash: "ab" }).toString("utf8")).toBe(
      'yoke.journal.checkpoint.v1\n{"headHash":"ab","keyId":null,"runId":"r","seq":3,"tenantId":"t"}',
    );
  });

  it("signs the head of a verified run and verifies it, also after later appends", async () => {
    const journal = createMemoryJournal({ keys: testKeys().provider });
    const { headHash } = await journal.append(scope, 0, [runStartedDraft(), ...notes(3)]);
    const checkpoint = await signCheckpoint(journal, scope, privateKey, { keyId: "cp1" });
    expect(checkpoint).toMatchObject({ version: 1, tenantId: "tenant_a", runId: "run_1", seq: 3, headHash, keyId: "cp1" });
    expect(await verifyCheckpoint(journal, scope, checkpoint, publicKey)).toEqual({ ok: true, seq: 3, headHash });
    await journal.append(scope, 4, notes(2));
    // A stored checkpoint is plain JSON; PEM keys work too.
    const stored = JSON.parse(JSON.stringify(checkpoint));
    expect(await verifyCheckpoint(journal, scope, stored, publicKey.export({ type: "spki", format: "pem" }) as string)).toMatchObject({ ok: true });
  });

  it("fails for an altered checkpoint, another key, another run or garbage", async () => {
    const journal = createMemoryJournal();
    await journal.append(scope, 0, [runStartedDraft(), ...notes(2)]);
    const checkpoint = await signCheckpoint(journal, scope, privateKey);
    const other = generateKeyPairSync("ed25519").publicKey;
    expect(await verifyCheckpoint(journal, scope, checkpoint, other)).toMatchObject({ ok: false, reason: "signature_invalid", seq: 2 });
    expect(await verifyCheckpoint(journal, scope, { ...checkpoint, seq: 1 }, publicKey)).toMatchObject({ ok: false, reason: "signature_invalid" });
    expect(await verifyCheckpoint(journal, scope, { ...checkpoint, keyId: "cp9" }, publicKey)).toMatchObject({ ok: false, reason: "signature_invalid" });
    expect(await verifyCheckpoint(journal, { ...scope, runId: "run_2" }, checkpoint, publicKey)).toMatchObject({ ok: false, reason: "scope_mismatch" });
    expect(await verifyCheckpoint(journal, scope, { ...checkpoint, version: 2 } as never, publicKey)).toMatchObject({ ok: false, reason: "malformed" });
  });

  it("refuses to sign an empty run, and keys that are not Ed25519", async () => {
    const journal = createMemoryJournal();
    expect(await rejectionOf(signCheckpoint(journal, scope, privateKey))).toMatchObject({ code: "RUN_NOT_FOUND" });
    await journal.append(scope, 0, [runStartedDraft()]);
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 });
    expect(await rejectionOf(signCheckpoint(journal, scope, rsa.privateKey))).toMatchObject({ code: "CONFIG_INVALID" });
    expect(await rejectionOf(signCheckpoint(journal, scope, publicKey))).toMatchObject({ code: "CONFIG_INVALID" });
    const checkpoint = await signCheckpoint(journal, scope, privateKey);
    expect(await rejectionOf(verifyCheckpoint(journal, scope, checkpoint, rsa.publicKey))).toMatchObject({ code: "CONFIG_INVALID" });
    // A private key verifies too (its public half is derived).
    expect(await verifyCheckpoint(journal, scope, checkpoint, privateKey)).toMatchObject({ ok: true });
  });
});

describe("checkpoints over a SQLite file edited behind the journal's back", () => {
  let directory: ReturnType<typeof tempDirectory>;
  let filename: string;
  const opened: JournalV1[] = [];
  // No head witness here: these edits are exactly what a witness beside the file would catch,
  // and a checkpoint has to catch them without one (a copied file, a witness deleted with it).
  const open = async () => {
    const journal = await createSqliteJournal({ filename, headWitness: "none" });
    opened.push(journal);
    return journal;
  };
  const raw = (sql: string, ...params: unknown[]) => {
    const db = new Database(filename);
    try {
      db.prepare(sql).run(...params);
    } finally {
      db.close();
    }
  };

  beforeEach(() => {
    directory = tempDirectory();
    filename = directory.file("journal.db");
  });
  afterEach(async () => {
    for (const journal of opened.splice(0)) await journal.close();
    directory.remove();
  });

  async function checkpointed() {
    const journal = await open();
    const { events } = await journal.append(scope, 0, [runStartedDraft(), ...notes(4)]);
    return { journal, events, checkpoint: await signCheckpoint(journal, scope, privateKey) };
  }

  it("names the edited event when the edit breaks the chain", async () => {
    const { journal, checkpoint } = await checkpointed();
    raw("UPDATE events SET data = ? WHERE seq = 2", canonicalJson({ index: 99 }));
    expect(await verifyCheckpoint(journal, scope, checkpoint, publicKey)).toMatchObject({ ok: false, reason: "chain_broken", seq: 2 });
  });

  it("fails at the checkpoint's seq when the run was edited and re-chained consistently", async () => {
    const { journal, events, checkpoint } = await checkpointed();
    let prevHash = events[1]!.hash;
    for (const event of events.slice(2)) {
      const data = event.seq === 2 ? { index: 99 } : event.data;
      const { hash: _old, ...envelope } = { ...event, data, prevHash };
      const hash = computeEventHash(envelope);
      raw("UPDATE events SET data = ?, prev_hash = ?, hash = ? WHERE seq = ?", canonicalJson(data), prevHash, hash, event.seq);
      prevHash = hash;
    }
    expect(await journal.verify(scope)).toMatchObject({ ok: true, events: 5 });
    expect(await verifyCheckpoint(journal, scope, checkpoint, publicKey)).toMatchObject({ ok: false, reason: "head_mismatch", seq: 4 });
  });

  it("fails, naming the first missing seq, when the tail was deleted", async () => {
    const { journal, checkpoint } = await checkpointed();
    raw("DELETE FROM events WHERE seq >= 3");
    expect(await journal.verify(scope)).toMatchObject({ ok: true, events: 3 });
    expect(await verifyCheckpoint(journal, scope, checkpoint, publicKey)).toMatchObject({ ok: false, reason: "truncated", seq: 3 });
    raw("DELETE FROM events");
    expect(await verifyCheckpoint(journal, scope, checkpoint, publicKey)).toMatchObject({ ok: false, reason: "truncated", seq: 0 });
  });

  it("does not sign a broken run", async () => {
    const journal = await open();
    await journal.append(scope, 0, [runStartedDraft(), ...notes(2)]);
    raw("UPDATE events SET at = 12345 WHERE seq = 1");
    expect(await rejectionOf(signCheckpoint(journal, scope, privateKey))).toMatchObject({ code: "JOURNAL_CHAIN_BROKEN", details: { seq: 1 } });
  });
});
