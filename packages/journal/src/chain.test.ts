import { EVENT_SCHEMA_VERSION, GENESIS_HASH, YokeError, canonicalJson, type EventDraft } from "@yoke/protocol";
import { eventDraft, runStartedDraft } from "@yoke/testkit";
import { eventBatchArbitrary } from "@yoke/testkit/arbitraries";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkEvent, computeEventHash, sealDrafts, sealEvents } from "./chain.js";

describe("sealing", () => {
  it("hashes exactly what computeEventHash hashes, and stores canonical data", () => {
    const scopeArbitrary = fc.record({ tenantId: fc.string({ unit: "binary" }), runId: fc.string({ unit: "binary" }) });
    fc.assert(
      fc.property(scopeArbitrary, eventBatchArbitrary({ startsRun: true, maxLength: 5 }), (scope, drafts: EventDraft[]) => {
        const sealed = sealDrafts(scope, { length: 0, hash: GENESIS_HASH }, drafts);
        let prevHash = GENESIS_HASH;
        for (const { event, canonicalData } of sealed) {
          const { hash, ...unsealed } = event;
          expect(event.prevHash).toBe(prevHash);
          expect(hash).toBe(computeEventHash(unsealed));
          expect(canonicalData).toBe(canonicalJson(event.data));
          prevHash = hash;
        }
        expect(sealEvents(scope, { length: 0, hash: GENESIS_HASH }, drafts)).toEqual(sealed.map(({ event }) => event));
      }),
      { numRuns: 200 },
    );
  });
});

describe("checking one event", () => {
  const scope = { tenantId: "tenant_a", runId: "run_1" };
  const [started] = sealEvents(scope, { length: 0, hash: GENESIS_HASH }, [runStartedDraft()]);
  /** The event with `changes`, re-hashed consistently: only the checks on the fields can catch it. */
  const resealed = (changes: Record<string, unknown>) => {
    const { hash: _hash, ...unsealed } = { ...started!, ...changes };
    return { ...unsealed, hash: computeEventHash(unsealed as Parameters<typeof computeEventHash>[0]) };
  };

  it("accepts the event where it belongs", () => {
    expect(checkEvent(scope, 0, GENESIS_HASH, started)).toBeNull();
  });

  it("refuses a consistently re-hashed event of another run or tenant, at another seq, or of a newer schema", () => {
    expect(checkEvent(scope, 0, GENESIS_HASH, resealed({ runId: "run_2" }))).toMatchObject({ ok: false, firstBadSeq: 0, reason: "scope_mismatch" });
    expect(checkEvent(scope, 0, GENESIS_HASH, resealed({ tenantId: "tenant_b" }))).toMatchObject({ ok: false, firstBadSeq: 0, reason: "scope_mismatch" });
    expect(checkEvent(scope, 0, GENESIS_HASH, resealed({ seq: 1 }))).toMatchObject({ ok: false, firstBadSeq: 0, reason: "sequence_gap" });
    expect(checkEvent(scope, 0, GENESIS_HASH, resealed({ schemaVersion: EVENT_SCHEMA_VERSION + 1 }))).toMatchObject({
      ok: false,
      firstBadSeq: 0,
      reason: "malformed",
    });
    expect(checkEvent(scope, 0, GENESIS_HASH, resealed({ prevHash: "f".repeat(64) }))).toMatchObject({ ok: false, reason: "prev_hash_mismatch" });
  });
});

describe("refused drafts name the event", () => {
  const scope = { tenantId: "tenant_a", runId: "run_1" };
  const refusal = (head: { length: number; hash: string }, drafts: unknown[]) => {
    try {
      sealDrafts(scope, head, drafts as EventDraft[]);
    } catch (error) {
      if (YokeError.isInstance(error)) return { code: error.code, details: error.details };
      throw error;
    }
    return undefined;
  };
  const empty = { length: 0, hash: GENESIS_HASH };

  it("a malformed draft: JOURNAL_INVALID_APPEND with its index in the append and its type", () => {
    const cases: Array<[unknown, Record<string, unknown>]> = [
      [null, { index: 1, type: undefined }],
      [
        { type: "Not A Type", at: 0, data: {} },
        { index: 1, type: "Not A Type" },
      ],
      [
        { type: "test.noted", at: -1, data: {} },
        { index: 1, type: "test.noted" },
      ],
      [
        { type: "test.noted", at: 0, causationId: 5, data: {} },
        { index: 1, type: "test.noted" },
      ],
      [
        { type: "test.noted", at: 0, data: [] },
        { index: 1, type: "test.noted" },
      ],
      [
        { type: "test.noted", at: 0, data: { value: Number.NaN } },
        { index: 1, type: "test.noted" },
      ],
    ];
    for (const [draft, details] of cases) {
      expect(refusal(empty, [runStartedDraft(), draft]), JSON.stringify(draft)).toEqual({ code: "JOURNAL_INVALID_APPEND", details });
    }
  });

  it("run.started out of place: JOURNAL_INVALID_APPEND with the seq and type", () => {
    expect(refusal(empty, [eventDraft("test.noted")])).toEqual({ code: "JOURNAL_INVALID_APPEND", details: { seq: 0, type: "test.noted" } });
    expect(refusal({ length: 3, hash: "a".repeat(64) }, [eventDraft("test.noted"), runStartedDraft()])).toEqual({
      code: "JOURNAL_INVALID_APPEND",
      details: { seq: 4, type: "run.started" },
    });
  });
});
