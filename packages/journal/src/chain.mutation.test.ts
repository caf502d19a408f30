// Clauses of chain.ts that StrykerJS found unpinned (reports/mutation/journal.md, 2026-12-03):
// a refusal's message says what is wrong, data is serialized strictly, the key id of
// computeEventHmac is checked, and ids that are not strings are sealed as computeEventHash
// hashes them.
import { GENESIS_HASH, YokeError, type EventDraft, type RunScope } from "@yoke/protocol";
import { eventDraft, runStartedDraft } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { computeEventHash, computeEventHmac, sealDrafts } from "./chain.js";
import { chainKeyOf } from "./keyed-chain.js";

const scope: RunScope = { tenantId: "tenant_a", runId: "run_1" };
const empty = { length: 0, hash: GENESIS_HASH };

function refusal(head: { length: number; hash: string }, drafts: unknown[], key?: Parameters<typeof sealDrafts>[3]): YokeError {
  try {
    sealDrafts(scope, head, drafts as EventDraft[], key);
  } catch (error) {
    if (YokeError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected the drafts to be refused");
}

describe("a refused append says what is wrong", () => {
  it("names the problem of a malformed draft in its message", () => {
    const cases: Array<[unknown, string]> = [
      [null, "not an object"],
      [{ type: "Not A Type", at: 0, data: {} }, "type must be noun.verb"],
      [{ type: "test.noted", at: -1, data: {} }, "at must be a non-negative integer"],
      [{ type: "test.noted", at: 0, causationId: 5, data: {} }, "causationId must be a string or null"],
      [{ type: "test.noted", at: 0, data: [] }, "data must be an object"],
      [{ type: "test.noted", at: 0, data: null }, "data must be an object"],
      [{ type: "test.noted", at: 0, data: "text" }, "data must be an object"],
      [{ type: "test.noted", at: 0 }, "data must be an object"],
    ];
    for (const [draft, why] of cases) {
      const refused = refusal(empty, [runStartedDraft(), draft]);
      expect(refused.code, JSON.stringify(draft)).toBe("JOURNAL_INVALID_APPEND");
      expect(refused.message, JSON.stringify(draft)).toContain(`event 1 of the append is malformed: ${why}`);
    }
  });

  it("keeps the serializer's error as the cause of a refusal of data that is not JSON", () => {
    const refused = refusal(empty, [runStartedDraft(), { type: "test.noted", at: 0, data: { value: Number.NaN } }]);
    expect(refused.code).toBe("JOURNAL_INVALID_APPEND");
    expect(refused.cause).toBeInstanceOf(Error);
  });

  it("leaves the type out of the details when it is not a string", () => {
    expect(refusal(empty, [runStartedDraft(), { type: 5, at: 0, data: {} }]).details).toEqual({ index: 1, type: undefined });
  });

  it("tells a missing run.started from a misplaced one", () => {
    expect(refusal(empty, [eventDraft("test.noted")]).message).toBe("the first event of a run must be run.started");
    expect(refusal({ length: 3, hash: "a".repeat(64) }, [runStartedDraft()]).message).toBe("run.started may only be the first event");
  });

  it("says an append needs events, and that a keyed journal does not extend a plain chain", () => {
    expect(refusal(empty, []).message).toBe("an append needs at least one event");
    const key = chainKeyOf({ keyId: "key_1", key: new Uint8Array(32) });
    const keyedOverPlain = refusal({ length: 1, hash: "a".repeat(64) }, [eventDraft("test.noted")], key);
    expect(keyedOverPlain.message).toContain("the run's head carries a plain SHA-256 hash, but this journal is keyed");
  });
});

describe("event data is serialized strictly", () => {
  it("refuses data holding undefined or an object that is not plain JSON (a Date), with the event's index and type", () => {
    for (const data of [{ value: undefined }, { when: new Date(0) }, { nested: { list: [1, undefined] } }]) {
      const refused = refusal(empty, [runStartedDraft(), eventDraft("test.noted", data as never)]);
      expect(refused.code).toBe("JOURNAL_INVALID_APPEND");
      expect(refused.details).toEqual({ index: 1, type: "test.noted" });
    }
  });
});

describe("computeEventHmac", () => {
  const [event] = sealDrafts(scope, empty, [runStartedDraft()]).map((sealed) => sealed.event);
  const { hash: _hash, ...unsealed } = event!;

  it("refuses a key id that is not 1-64 characters of [A-Za-z0-9._-] with CONFIG_INVALID naming it", () => {
    for (const keyId of ["", "has space", "x".repeat(65), "key/1"]) {
      let refused: unknown;
      try {
        computeEventHmac(unsealed, { keyId, key: new Uint8Array(32) });
      } catch (error) {
        refused = error;
      }
      expect(refused, JSON.stringify(keyId)).toMatchObject({ code: "CONFIG_INVALID", details: { keyId }, message: expect.stringContaining("1-64 characters") });
    }
    expect(computeEventHmac(unsealed, { keyId: "key_1.a-B", key: new Uint8Array(32) })).toMatch(/^hmac-sha256:key_1\.a-B:[0-9a-f]{64}$/);
  });
});

describe("sealing a scope whose ids are not strings", () => {
  it("hashes exactly what computeEventHash hashes", () => {
    const scopes = [
      { tenantId: undefined, runId: "run_1" },
      { tenantId: "tenant_a", runId: undefined },
      { tenantId: { b: 1, a: 2 }, runId: "run_1" },
      { tenantId: "tenant_a", runId: { b: 1, a: 2 } },
    ] as unknown as RunScope[];
    for (const odd of scopes) {
      for (const { event } of sealDrafts(odd, empty, [runStartedDraft(), eventDraft("test.noted")])) {
        const { hash, ...rest } = event;
        expect(hash, JSON.stringify(odd)).toBe(computeEventHash(rest));
      }
    }
  });
});
