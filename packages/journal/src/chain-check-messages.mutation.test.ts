// Clauses of chain.ts that StrykerJS left "not triaged" (reports/mutation/journal.md, 2026-12-03):
// the message of each checkEvent failure and of a conflict, which a read or verify reports
// to a person (only `reason` and `code` were asserted).
import { GENESIS_HASH, type JournalEvent, type RunScope } from "@yoke/protocol";
import { eventDraft, runStartedDraft } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { testKeys } from "./__fixtures__/test-keys.js";
import { checkEvent, checkEventAskingKeys, conflictError, sealEvents } from "./chain.js";
import { JournalKeyRing } from "./keyed-chain.js";
import { createMemoryJournal } from "./memory-journal.js";

const scope: RunScope = { tenantId: "tenant_a", runId: "run_1" };
const [first, second] = sealEvents(scope, { length: 0, hash: GENESIS_HASH }, [runStartedDraft(), eventDraft("test.noted", { n: 1 })]) as [
  JournalEvent,
  JournalEvent,
];

describe("checkEvent says what is wrong with a stored event", () => {
  it("names each failure in its message", () => {
    const cases: Array<[string, unknown, string]> = [
      ["scope_mismatch", { ...second, runId: "run_2" }, "event belongs to another run or tenant"],
      ["sequence_gap", { ...second, seq: 2 }, "found seq 2"],
      ["malformed", { ...second, schemaVersion: 99 }, "unknown schema version 99"],
      ["prev_hash_mismatch", { ...second, prevHash: "f".repeat(64) }, "predecessor hash does not match"],
      ["key_required", { ...second, hash: `hmac-sha256:k1:${"0".repeat(64)}` }, "the event is sealed with an HMAC; open the journal with its keys"],
      ["hash_mismatch", { ...second, data: { n: 2 } }, "event content does not match its hash"],
    ];
    for (const [reason, candidate, message] of cases) {
      expect(checkEvent(scope, 1, first.hash, candidate), reason).toEqual({ ok: false, firstBadSeq: 1, reason, message });
    }
    expect(checkEvent(scope, 1, first.hash, second)).toBeNull();
  });

  it("says which sequence a stale writer expected and how long the run is", () => {
    expect(conflictError(scope, 3, 5).message).toBe("run run_1: append expected sequence 3 but the run has 5 events");
  });
});

describe("a keyed read asks the key provider only about keys", () => {
  it("does not ask for the key an event names when its failure is not about a key (chain.ts missingKeyId, :205)", async () => {
    const keys = testKeys("k1");
    const journal = createMemoryJournal({ keys: keys.provider });
    const { events } = await journal.append(scope, 0, [runStartedDraft(), eventDraft("test.noted", { n: 1 })]);
    const ring = new JournalKeyRing(keys.provider); // a fresh ring: it holds no key yet
    keys.calls.length = 0;
    const broken = { ...events[1]!, prevHash: "f".repeat(64) };
    expect(await checkEventAskingKeys(scope, 1, events[0]!.hash, broken, ring)).toMatchObject({ reason: "prev_hash_mismatch" });
    expect(keys.calls).toEqual([]);
    // A failure that is about a key the ring does not hold yet does ask, once.
    expect(await checkEventAskingKeys(scope, 1, events[0]!.hash, events[1], ring)).toBeNull();
    expect(keys.calls).toEqual(["keyById tenant_a k1"]);
  });
});
