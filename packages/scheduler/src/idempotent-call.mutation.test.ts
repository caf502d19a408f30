// `pnpm mutate scheduler` found idempotent-call.ts without a test of scheduler's own (the
// runtime's tests and the journal's stores exercise it). A scripted store: each claim gets
// the next scripted answer, and every request is recorded.
import { createHash } from "node:crypto";
import {
  YokeError,
  steppingClock,
  type IdempotencyClaim,
  type IdempotencyClaimRequest,
  type IdempotencyCompleteRequest,
  type IdempotencyStoreV1,
} from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { argumentDigest, callIdempotently } from "./idempotent-call.js";

function scriptedStore(answers: IdempotencyClaim[]) {
  const claims: IdempotencyClaimRequest[] = [];
  const completes: IdempotencyCompleteRequest[] = [];
  const store: IdempotencyStoreV1 = {
    specificationVersion: "v1",
    claim: async (request) => {
      claims.push(request);
      return answers.shift() ?? { kind: "claimed", reclaimed: false };
    },
    complete: async (request) => void completes.push(request),
    close: async () => undefined,
  };
  return { store, claims, completes };
}

const clock = steppingClock(1_000, 10);
const options = (store: IdempotencyStoreV1) => ({ store, tenantId: "tenant_a", key: "action_1", args: { b: 1, a: [2] }, clock });

describe("callIdempotently", () => {
  it("digests arguments as SHA-256 of their canonical JSON, whatever the key order", () => {
    expect(argumentDigest({ b: 1, a: [2] })).toBe(createHash("sha256").update('{"a":[2],"b":1}').digest("hex"));
    expect(argumentDigest({ a: [2], b: 1 })).toBe(argumentDigest({ b: 1, a: [2] }));
  });

  it("claimed: runs the effect once and stores its value, under a 30 s lease by default", async () => {
    const { store, claims, completes } = scriptedStore([{ kind: "claimed", reclaimed: false }]);
    let runs = 0;
    const outcome = await callIdempotently(options(store), async () => {
      runs += 1;
      return { id: "tr_1" };
    });
    expect(outcome).toEqual({ status: "succeeded", value: { id: "tr_1" } });
    expect(runs).toBe(1);
    const digest = argumentDigest({ a: [2], b: 1 });
    expect(claims).toEqual([{ tenantId: "tenant_a", key: "action_1", argumentDigest: digest, now: expect.any(Number), leaseMs: 30_000 }]);
    expect(completes).toEqual([{ tenantId: "tenant_a", key: "action_1", argumentDigest: digest, outcome, now: expect.any(Number) }]);
  });

  it("a failing effect is stored as failed: its YokeError code, or TOOL_FAILED", async () => {
    for (const [error, code] of [
      [new YokeError("PROVIDER_UNAVAILABLE", "bank down"), "PROVIDER_UNAVAILABLE"],
      [new Error("bank down"), "TOOL_FAILED"],
    ] as const) {
      const { store, completes } = scriptedStore([{ kind: "claimed", reclaimed: false }]);
      const outcome = await callIdempotently(options(store), async () => {
        throw error;
      });
      expect(outcome).toEqual({ status: "failed", error: { code, message: "bank down" } });
      expect(completes[0]!.outcome).toEqual(outcome);
    }
  });

  it("completed: the stored outcome, without running the effect", async () => {
    const stored = { status: "succeeded" as const, value: 7 };
    const { store, completes } = scriptedStore([{ kind: "completed", outcome: stored }]);
    expect(await callIdempotently(options(store), async () => expect.unreachable())).toEqual(stored);
    expect(completes).toEqual([]);
  });

  it("mismatch: IDEMPOTENCY_KEY_REUSED naming both digests", async () => {
    const { store } = scriptedStore([{ kind: "mismatch", storedDigest: "d0" }]);
    const refused = callIdempotently(options(store), async () => expect.unreachable());
    await expect(refused).rejects.toMatchObject({
      code: "IDEMPOTENCY_KEY_REUSED",
      message: "idempotency key action_1 was already used with other arguments",
      details: { tenantId: "tenant_a", key: "action_1", storedDigest: "d0", argumentDigest: argumentDigest({ a: [2], b: 1 }) },
    });
  });

  it("in_progress: waits (one event-loop turn by default) and claims again", async () => {
    const stored = { status: "succeeded" as const, value: 1 };
    const waited = scriptedStore([
      { kind: "in_progress", claimedAt: 0 },
      { kind: "in_progress", claimedAt: 0 },
      { kind: "completed", outcome: stored },
    ]);
    let waits = 0;
    const custom = { ...options(waited.store), wait: async () => void (waits += 1) };
    expect(await callIdempotently(custom, async () => expect.unreachable())).toEqual(stored);
    expect([waits, waited.claims.length]).toEqual([2, 3]);
    const plain = scriptedStore([
      { kind: "in_progress", claimedAt: 0 },
      { kind: "completed", outcome: stored },
    ]);
    expect(await callIdempotently(options(plain.store), async () => expect.unreachable())).toEqual(stored);
    expect(plain.claims).toHaveLength(2);
  });

  it("in_progress: the default wait is a whole event-loop turn, not a microtask (the owner's I/O runs before the next claim)", async () => {
    const stored = { status: "succeeded" as const, value: 1 };
    const scripted = scriptedStore([
      { kind: "in_progress", claimedAt: 0 },
      { kind: "completed", outcome: stored },
    ]);
    let ownerRan = false;
    const seen: boolean[] = [];
    const store: IdempotencyStoreV1 = {
      ...scripted.store,
      claim: async (request) => {
        seen.push(ownerRan);
        // The owner's completion arrives as I/O would: in a later turn of the event loop.
        if (seen.length === 1) setImmediate(() => void (ownerRan = true));
        return scripted.store.claim(request);
      },
    };
    expect(await callIdempotently(options(store), async () => expect.unreachable())).toEqual(stored);
    expect(seen).toEqual([false, true]);
  });
});
