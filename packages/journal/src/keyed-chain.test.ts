import { createHmac } from "node:crypto";
import { EVENT_SCHEMA_VERSION, GENESIS_HASH, YokeError, canonicalJson, type JournalEvent, type JournalKeyProvider } from "@yoke/protocol";
import { eventDraft, rejectionOf, runStartedDraft } from "@yoke/testkit";
import { journalContractTests } from "@yoke/testkit/contracts";
import { describe, expect, it } from "vitest";
import { KEYED_GOLDEN_HASH, testKeyMaterial, testKeys } from "./__fixtures__/test-keys.js";
import { checkEventAskingKeys, computeEventHash, computeEventHmac, sealEvents } from "./chain.js";
import { JournalKeyRing, chainKeyOf } from "./keyed-chain.js";
import { createMemoryJournal } from "./memory-journal.js";

const contract = journalContractTests("memory, keyed", () => ({ journal: createMemoryJournal({ keys: testKeys().provider }) }), {
  goldenRunStartedHash: KEYED_GOLDEN_HASH,
  chain: "hmac-sha256",
});
// A literal describe and it.for, so `vitest list` (a static read of this file) finds the suite.
describe("JournalV1 contract: memory, keyed", () => {
  it.for(contract.tests)("$title", (test) => test.run());
});

const scope = { tenantId: "tenant_a", runId: "run_1" };
const notes = (count: number) => Array.from({ length: count }, (_, index) => eventDraft("test.noted", { index }));

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The checks the memory store runs on every stored event, over a list of events built by hand. */
async function verifyList(events: readonly unknown[], keys: JournalKeyRing) {
  let prevHash = GENESIS_HASH;
  for (let seq = 0; seq < events.length; seq++) {
    const failure = await checkEventAskingKeys(scope, seq, prevHash, events[seq], keys);
    if (failure) return failure;
    prevHash = (events[seq] as JournalEvent).hash;
  }
  return null;
}

describe("keyed chain: the seal", () => {
  it("is HMAC-SHA256 under the key of its tag followed by the canonical event, as documented", () => {
    const [event] = sealEvents(scope, { length: 0, hash: GENESIS_HASH }, [runStartedDraft()]);
    const { hash, ...unsealed } = event!;
    const key = { keyId: "k1", key: testKeyMaterial("tenant_a", "k1") };
    const body = canonicalJson({ ...unsealed, schemaVersion: EVENT_SCHEMA_VERSION });
    const expected = createHmac("sha256", key.key).update(`hmac-sha256:k1:${body}`).digest("hex");
    expect(computeEventHmac(unsealed, key)).toBe(`hmac-sha256:k1:${expected}`);
    expect(hash).toBe(computeEventHash(unsealed));
    const [keyed] = sealEvents(scope, { length: 0, hash: GENESIS_HASH }, [runStartedDraft()], chainKeyOf(key));
    expect(keyed!.hash).toBe(`hmac-sha256:k1:${expected}`);
  });
});

describe("keyed chain: memory journal", () => {
  it("refuses an append whose key arrived after close with JOURNAL_CLOSED", async () => {
    const journal = createMemoryJournal({ keys: testKeys().provider });
    await journal.append(scope, 0, [runStartedDraft()]);
    // The append waits for its sealing key; the journal closes meanwhile.
    const pending = journal.append(scope, 1, notes(1));
    await journal.close();
    expect((await rejectionOf(pending)).code).toBe("JOURNAL_CLOSED");
  });

  it("seals every event with the tenant's key and verifies it, reporting the form and key ids", async () => {
    const keys = testKeys();
    const journal = createMemoryJournal({ keys: keys.provider });
    const { events } = await journal.append(scope, 0, [runStartedDraft(), ...notes(2)]);
    for (const event of events) expect(event.hash).toMatch(/^hmac-sha256:k1:[0-9a-f]{64}$/);
    expect(await journal.verify(scope)).toEqual({ ok: true, events: 3, headHash: events[2]!.hash, chain: "hmac-sha256", keyIds: ["k1"] });
    expect(await collect(journal.read(scope))).toEqual(events);
    // Another tenant's key differs: the same drafts seal to other hashes.
    const other = await journal.append({ tenantId: "tenant_b", runId: "run_1" }, 0, [runStartedDraft(), ...notes(2)]);
    expect(other.events[0]!.hash).not.toBe(events[0]!.hash);
  });

  it("reports an unkeyed journal as sha256 with no key ids", async () => {
    const journal = createMemoryJournal();
    await journal.append(scope, 0, [runStartedDraft()]);
    expect(await journal.verify(scope)).toMatchObject({ ok: true, chain: "sha256", keyIds: [] });
  });

  it("rejects a forged event with a valid plain SHA-256 hash, naming its seq", async () => {
    const keys = new JournalKeyRing(testKeys().provider);
    const sealed = sealEvents(scope, { length: 0, hash: GENESIS_HASH }, [runStartedDraft(), ...notes(2)], await keys.sealingKey("tenant_a"));
    const forgedBody = {
      schemaVersion: EVENT_SCHEMA_VERSION,
      tenantId: scope.tenantId,
      runId: scope.runId,
      seq: 3,
      type: "action.committed",
      at: 5,
      causationId: null,
      data: { actionId: "act_forged", attemptId: "att_forged" },
      prevHash: sealed[2]!.hash,
    };
    const forged = { ...forgedBody, hash: computeEventHash(forgedBody) };
    expect(await verifyList([...sealed, forged], keys)).toMatchObject({ ok: false, firstBadSeq: 3, reason: "unkeyed" });
    // The same events, sealed the plain way from the start, are what an unkeyed journal accepts.
    expect(await verifyList(sealed, keys)).toBeNull();
  });

  it("rejects an event re-sealed under other key material, or under a key id the tenant does not have", async () => {
    const keys = new JournalKeyRing(testKeys().provider);
    const head = { length: 0, hash: GENESIS_HASH };
    const drafts = [runStartedDraft(), ...notes(2)];
    const genuine = sealEvents(scope, head, drafts, await keys.sealingKey("tenant_a"));
    const wrongMaterial = sealEvents(scope, head, drafts, chainKeyOf({ keyId: "k1", key: testKeyMaterial("tenant_b", "k1") }));
    expect(
      await verifyList(
        [...genuine.slice(0, 2), ...wrongMaterial.slice(2)].map((event, seq) => (seq === 2 ? { ...event, prevHash: genuine[1]!.hash } : event)),
        keys,
      ),
    ).toMatchObject({
      ok: false,
      firstBadSeq: 2,
      reason: "hash_mismatch",
    });
    const unknownKey = sealEvents(scope, head, drafts, chainKeyOf({ keyId: "k_attacker", key: Buffer.alloc(32, 7) }));
    expect(await verifyList(unknownKey, keys)).toMatchObject({ ok: false, firstBadSeq: 0, reason: "key_mismatch" });
  });

  it("keeps verifying runs sealed under an older key after rotation, and names every key id", async () => {
    const keys = testKeys("k1");
    const journal = createMemoryJournal({ keys: keys.provider });
    await journal.append(scope, 0, [runStartedDraft(), ...notes(1)]);
    keys.rotate("k2");
    const { events } = await journal.append(scope, 2, notes(2));
    expect(events.map((event) => event.hash.slice(0, 15))).toEqual(["hmac-sha256:k2:", "hmac-sha256:k2:"]);
    expect(await journal.verify(scope)).toMatchObject({ ok: true, events: 4, keyIds: ["k1", "k2"] });
    expect(await collect(journal.read(scope))).toHaveLength(4);
  });

  it("refuses a run whose key the provider no longer has, or whose key material changed", async () => {
    const keys = testKeys("k1");
    const journal = createMemoryJournal({ keys: keys.provider });
    await journal.append(scope, 0, [runStartedDraft()]);
    keys.rotate("k2");
    keys.revoke("k1");
    // A fresh journal over the same provider has not seen k1; the memory store cannot be
    // reopened, so the same checks run over its events by hand.
    const events = await collect(journal.read(scope)); // this journal still holds k1 from sealing
    expect(await verifyList(events, new JournalKeyRing(keys.provider))).toMatchObject({ ok: false, firstBadSeq: 0, reason: "key_mismatch" });
    const changed: JournalKeyProvider = { keyFor: () => ({ keyId: "k1", key: Buffer.alloc(32, 1) }) };
    expect(await verifyList(events, new JournalKeyRing(changed))).toMatchObject({ ok: false, firstBadSeq: 0, reason: "hash_mismatch" });
  });

  it("without keyById, verifies with the current key only", async () => {
    const material = testKeyMaterial("tenant_a", "k1");
    let current = { keyId: "k1", key: material };
    const journal = createMemoryJournal({ keys: { keyFor: () => current } });
    await journal.append(scope, 0, [runStartedDraft()]);
    expect(await journal.verify(scope)).toMatchObject({ ok: true, keyIds: ["k1"] });
    current = { keyId: "k2", key: testKeyMaterial("tenant_a", "k2") };
    await journal.append(scope, 1, notes(1));
    // k1 was learnt while sealing; a ring that never saw it cannot find it.
    const events = await collect(journal.read(scope));
    expect(await verifyList(events, new JournalKeyRing({ keyFor: () => current }))).toMatchObject({ reason: "key_mismatch", firstBadSeq: 0 });
  });

  it("turns a provider that throws or rejects into JOURNAL_KEY_UNAVAILABLE, writing nothing", async () => {
    const throwing = createMemoryJournal({
      keys: {
        keyFor: () => {
          throw new Error("KMS down");
        },
      },
    });
    const error = await rejectionOf(throwing.append(scope, 0, [runStartedDraft()]));
    expect(error).toMatchObject({ code: "JOURNAL_KEY_UNAVAILABLE", details: { tenantId: "tenant_a" } });
    expect(await throwing.head(scope)).toBeNull();
    const rejecting = createMemoryJournal({ keys: { keyFor: async () => Promise.reject(new Error("KMS down")) } });
    expect(await rejectionOf(rejecting.append(scope, 0, [runStartedDraft()]))).toMatchObject({ code: "JOURNAL_KEY_UNAVAILABLE" });
    const short = createMemoryJournal({ keys: { keyFor: () => ({ keyId: "k1", key: new Uint8Array(8) }) } });
    expect(await rejectionOf(short.append(scope, 0, [runStartedDraft()]))).toMatchObject({ code: "JOURNAL_KEY_UNAVAILABLE" });
    const badId = createMemoryJournal({ keys: { keyFor: () => ({ keyId: "k:1", key: new Uint8Array(32) }) } });
    expect(await rejectionOf(badId.append(scope, 0, [runStartedDraft()]))).toMatchObject({ code: "JOURNAL_KEY_UNAVAILABLE" });
  });

  it("turns a lookup that throws during a read into JOURNAL_KEY_UNAVAILABLE", async () => {
    const keys = testKeys("k1");
    const journal = createMemoryJournal({ keys: keys.provider });
    await journal.append(scope, 0, [runStartedDraft()]);
    const events = await collect(journal.read(scope));
    const failing = new JournalKeyRing({
      keyFor: () => ({ keyId: "k2", key: new Uint8Array(32) }),
      keyById: () => {
        throw new Error("KMS down");
      },
    });
    const error = await rejectionOf(verifyList(events, failing));
    expect(YokeError.hasCode(error, "JOURNAL_KEY_UNAVAILABLE")).toBe(true);
  });

  it("asks the provider once per key id, not per event", async () => {
    const keys = testKeys("k1");
    const journal = createMemoryJournal({ keys: keys.provider });
    await journal.append(scope, 0, [runStartedDraft(), ...notes(20)]);
    keys.calls.length = 0;
    const ring = new JournalKeyRing(keys.provider);
    expect(await verifyList(await collect(journal.read(scope)), ring)).toBeNull();
    expect(keys.calls).toEqual(["keyById tenant_a k1"]);
  });

  it("refuses a key provider that is not one", () => {
    expect(() => createMemoryJournal({ keys: {} as JournalKeyProvider })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });
});
