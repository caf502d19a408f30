import { readFileSync } from "node:fs";
import type { JournalKeyProvider, RunScope } from "@yoke/protocol";
import { eventDraft, rejectionOf, runStartedDraft } from "@yoke/testkit";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { tempDirectoryPerTest } from "./__fixtures__/temp-files.js";
import { testKeys } from "./__fixtures__/test-keys.js";
import { createSqliteJournal, type SqliteJournal } from "./sqlite-journal.js";

const scope: RunScope = { tenantId: "tenant_a", runId: "run_1" };
const directory = tempDirectoryPerTest("yoke-keyed-head-");
const notes = (count: number) => Array.from({ length: count }, (_, index) => eventDraft("test.noted", { index }));

/** Providers that hold other key material than the run's owner: under its key id, or under another id only. */
const impostors: { name: string; provider: JournalKeyProvider; reason: string }[] = [
  { name: "other material under the same key id", provider: { keyFor: () => ({ keyId: "k1", key: Buffer.alloc(32, 7) }) }, reason: "hash_mismatch" },
  {
    name: "other material under the same key id, with keyById",
    provider: { keyFor: () => ({ keyId: "k1", key: Buffer.alloc(32, 8) }), keyById: (_tenant, keyId) => ({ keyId, key: Buffer.alloc(32, 8) }) },
    reason: "hash_mismatch",
  },
  { name: "only another key id", provider: { keyFor: () => ({ keyId: "k9", key: Buffer.alloc(32, 9) }) }, reason: "key_mismatch" },
];

function eventCount(filename: string): number {
  const db = new Database(filename, { readonly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM events").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe("sqlite journal, keyed: the head is verified before a journal's first append to a run", () => {
  it.for(impostors)("refuses a writer holding $name, and writes nothing", async ({ provider, reason }) => {
    const filename = directory.file("journal.db");
    const owner = await createSqliteJournal({ filename, keys: testKeys().provider });
    const impostor = await createSqliteJournal({ filename, keys: provider });
    const opened: SqliteJournal[] = [owner, impostor];
    try {
      await owner.append(scope, 0, [runStartedDraft(), ...notes(2)]);
      const witness = readFileSync(`${filename}-head`);
      const error = await rejectionOf(impostor.append(scope, 3, notes(1)));
      expect(error).toMatchObject({ code: "JOURNAL_CHAIN_BROKEN", details: { tenantId: "tenant_a", runId: "run_1", seq: 2, reason } });
      // Nothing written: no row, no witness line; the owner goes on as if the impostor never tried.
      expect(eventCount(filename)).toBe(3);
      expect(readFileSync(`${filename}-head`)).toEqual(witness);
      await owner.append(scope, 3, notes(1));
      // The impostor is refused again after the owner's append (it has no head of its own to trust).
      expect(await rejectionOf(impostor.append(scope, 4, notes(1)))).toMatchObject({ code: "JOURNAL_CHAIN_BROKEN", details: { seq: 3, reason } });
      const reader = await createSqliteJournal({ filename, keys: testKeys().provider, readOnly: true });
      opened.push(reader);
      expect(await reader.verify(scope)).toMatchObject({ ok: true, events: 4, keyIds: ["k1"] });
    } finally {
      for (const journal of opened) await journal.close();
    }
  });

  it("an unkeyed journal does not extend a keyed run either: JOURNAL_KEY_UNAVAILABLE (key_required), nothing written", async () => {
    const filename = directory.file("journal.db");
    const owner = await createSqliteJournal({ filename, keys: testKeys().provider });
    const plain = await createSqliteJournal({ filename });
    try {
      await owner.append(scope, 0, [runStartedDraft(), ...notes(1)]);
      expect(await rejectionOf(plain.append(scope, 2, notes(1)))).toMatchObject({
        code: "JOURNAL_KEY_UNAVAILABLE",
        details: { seq: 1, reason: "key_required" },
      });
      expect(eventCount(filename)).toBe(2);
      expect(await owner.verify(scope)).toMatchObject({ ok: true, events: 2 });
    } finally {
      await plain.close();
      await owner.close();
    }
  });

  it("lets the key holder extend a run another journal of its own wrote, after a rotation (asking keyById for the head's key)", async () => {
    const filename = directory.file("journal.db");
    const keys = testKeys("k1");
    const first = await createSqliteJournal({ filename, keys: keys.provider });
    await first.append(scope, 0, [runStartedDraft(), ...notes(2)]);
    await first.close();
    keys.rotate("k2");
    const second = await createSqliteJournal({ filename, keys: testKeys("k2").provider });
    try {
      // A fresh provider that knows k2 only (no k1): the head is not verifiable, so no append.
      expect(await rejectionOf(second.append(scope, 3, notes(1)))).toMatchObject({ code: "JOURNAL_CHAIN_BROKEN", details: { seq: 2, reason: "key_mismatch" } });
    } finally {
      await second.close();
    }
    const third = await createSqliteJournal({ filename, keys: keys.provider });
    try {
      await third.append(scope, 3, notes(1));
      expect(await third.verify(scope)).toMatchObject({ ok: true, events: 4, keyIds: ["k1", "k2"] });
      expect(keys.calls).toContain("keyById tenant_a k1");
    } finally {
      await third.close();
    }
  });
});
