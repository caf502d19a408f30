import { YokeError, type IdempotencyOutcome, type IdempotencyStoreV1 } from "@yoke/protocol";
import { expect } from "vitest";
import { afterEach, beforeEach, describe, it, recordContractTests, type ContractTests } from "./contract-recorder.js";

/** Opens a fresh, empty store for one test; `cleanup` runs after it. */
export type IdempotencyStoreFactory = () => Promise<{ store: IdempotencyStoreV1; cleanup?: () => Promise<void> | void }>;

const LEASE = 60_000;
const ok = (value: string): IdempotencyOutcome => ({ status: "succeeded", value });

/** One submission, as a client would make it: claim; run and complete if it won; else wait for the winner. */
async function submit(
  store: IdempotencyStoreV1,
  tenantId: string,
  key: string,
  digest: string,
  effect: () => Promise<IdempotencyOutcome>,
): Promise<IdempotencyOutcome> {
  for (;;) {
    const claim = await store.claim({ tenantId, key, argumentDigest: digest, now: 0, leaseMs: LEASE });
    if (claim.kind === "completed") return claim.outcome;
    if (claim.kind === "mismatch") throw new YokeError("IDEMPOTENCY_KEY_REUSED", `key ${key} reused`);
    if (claim.kind === "claimed") {
      const outcome = await effect();
      await store.complete({ tenantId, key, argumentDigest: digest, outcome, now: 0 });
      return outcome;
    }
    await new Promise<void>((resolve) => setImmediate(resolve)); // one event-loop turn, not a timed sleep
  }
}

/**
 * The contract every `IdempotencyStoreV1` must keep. Call it inside a vitest file.
 *
 * @example
 * ```ts
 * describeIdempotencyStoreContract("memory", async () => ({ store: createMemoryIdempotencyStore() }));
 * ```
 */
export function describeIdempotencyStoreContract(name: string, factory: IdempotencyStoreFactory): void {
  describe(`IdempotencyStoreV1 contract: ${name}`, () => {
    let store: IdempotencyStoreV1;
    let cleanup: (() => Promise<void> | void) | undefined;
    beforeEach(async () => {
      ({ store, cleanup } = await factory());
    });
    afterEach(async () => {
      await store.close();
      await cleanup?.();
    });

    it("the first claim wins; a repeat sees in_progress, then the stored outcome", async () => {
      const request = { tenantId: "tenant_a", key: "k1", argumentDigest: "d1", now: 10, leaseMs: LEASE };
      expect(await store.claim(request)).toEqual({ kind: "claimed", reclaimed: false });
      expect(await store.claim(request)).toEqual({ kind: "in_progress", claimedAt: 10 });
      await store.complete({ tenantId: "tenant_a", key: "k1", argumentDigest: "d1", outcome: ok("v"), now: 11 });
      expect(await store.claim(request)).toEqual({ kind: "completed", outcome: ok("v") });
    });

    it("stores failures and replays them; a second complete does not overwrite the first", async () => {
      const failed: IdempotencyOutcome = { status: "failed", error: { code: "TOOL_FAILED", message: "card declined" } };
      await store.claim({ tenantId: "tenant_a", key: "k", argumentDigest: "d", now: 0, leaseMs: LEASE });
      await store.complete({ tenantId: "tenant_a", key: "k", argumentDigest: "d", outcome: failed, now: 1 });
      await store.complete({ tenantId: "tenant_a", key: "k", argumentDigest: "d", outcome: ok("late"), now: 2 });
      expect(await store.claim({ tenantId: "tenant_a", key: "k", argumentDigest: "d", now: 3, leaseMs: LEASE })).toEqual({
        kind: "completed",
        outcome: failed,
      });
    });

    it("the same key with other arguments is a mismatch naming the stored digest", async () => {
      await store.claim({ tenantId: "tenant_a", key: "k", argumentDigest: "d1", now: 0, leaseMs: LEASE });
      expect(await store.claim({ tenantId: "tenant_a", key: "k", argumentDigest: "d2", now: 0, leaseMs: LEASE })).toEqual({
        kind: "mismatch",
        storedDigest: "d1",
      });
    });

    it("keys are namespaced by tenant", async () => {
      await store.claim({ tenantId: "tenant_a", key: "k", argumentDigest: "d1", now: 0, leaseMs: LEASE });
      expect(await store.claim({ tenantId: "tenant_b", key: "k", argumentDigest: "d2", now: 0, leaseMs: LEASE })).toEqual({
        kind: "claimed",
        reclaimed: false,
      });
    });

    it("an expired claim can be taken over; a live one cannot", async () => {
      await store.claim({ tenantId: "tenant_a", key: "k", argumentDigest: "d", now: 0, leaseMs: 100 });
      expect((await store.claim({ tenantId: "tenant_a", key: "k", argumentDigest: "d", now: 99, leaseMs: 100 })).kind).toBe("in_progress");
      expect(await store.claim({ tenantId: "tenant_a", key: "k", argumentDigest: "d", now: 100, leaseMs: 100 })).toEqual({ kind: "claimed", reclaimed: true });
    });

    it("a completed key stays completed long after its lease; a reclaim starts a fresh lease", async () => {
      const claim = (now: number, key = "k") => store.claim({ tenantId: "tenant_a", key, argumentDigest: "d", now, leaseMs: LEASE });
      await claim(1_000);
      await store.complete({ tenantId: "tenant_a", key: "k", argumentDigest: "d", outcome: ok("done"), now: 2_000 });
      for (const now of [1_000 + LEASE - 1, 1_000 + LEASE, 1_000 + LEASE + 1, 1_000 + 100 * LEASE]) {
        expect(await claim(now), `claim at ${now}`).toEqual({ kind: "completed", outcome: ok("done") });
      }

      await claim(5_000, "running");
      expect(await claim(5_000 + LEASE - 1, "running")).toEqual({ kind: "in_progress", claimedAt: 5_000 });
      expect(await claim(5_000 + LEASE, "running")).toEqual({ kind: "claimed", reclaimed: true });
      // The reclaim is a new lease from its own time: a third claimant waits for that one.
      expect(await claim(5_000 + 2 * LEASE - 1, "running")).toEqual({ kind: "in_progress", claimedAt: 5_000 + LEASE });
      expect(await claim(5_000 + 2 * LEASE, "running")).toEqual({ kind: "claimed", reclaimed: true });
    });

    it("complete stores nothing for a key never claimed, or under other arguments than the claim's", async () => {
      const claim = (key: string, argumentDigest = "d") => store.claim({ tenantId: "tenant_a", key, argumentDigest, now: 0, leaseMs: LEASE });
      await store.complete({ tenantId: "tenant_a", key: "never", argumentDigest: "d", outcome: ok("ghost"), now: 1 });
      expect(await claim("never")).toEqual({ kind: "claimed", reclaimed: false });
      await claim("k");
      await store.complete({ tenantId: "tenant_a", key: "k", argumentDigest: "other", outcome: ok("wrong"), now: 1 });
      expect(await claim("k")).toEqual({ kind: "in_progress", claimedAt: 0 });
      await store.complete({ tenantId: "tenant_b", key: "k", argumentDigest: "d", outcome: ok("other tenant"), now: 1 });
      expect(await claim("k")).toEqual({ kind: "in_progress", claimedAt: 0 });
    });

    it("keeps the outcome as it was completed, not the caller's object", async () => {
      const outcome = { status: "succeeded", value: { items: ["a"] } } as IdempotencyOutcome & { value: { items: string[] } };
      await store.claim({ tenantId: "tenant_a", key: "k", argumentDigest: "d", now: 0, leaseMs: LEASE });
      await store.complete({ tenantId: "tenant_a", key: "k", argumentDigest: "d", outcome, now: 1 });
      outcome.value.items.push("changed later");
      expect(await store.claim({ tenantId: "tenant_a", key: "k", argumentDigest: "d", now: 2, leaseMs: LEASE })).toEqual({
        kind: "completed",
        outcome: { status: "succeeded", value: { items: ["a"] } },
      });
    });

    it("refuses claim and complete after close with JOURNAL_CLOSED; closing twice is fine", async () => {
      await store.claim({ tenantId: "tenant_a", key: "k", argumentDigest: "d", now: 0, leaseMs: LEASE });
      await store.close();
      const refusal = async (call: Promise<unknown>) => {
        try {
          await call;
        } catch (error) {
          return YokeError.isInstance(error) ? error.code : String(error);
        }
        return "resolved";
      };
      expect(await refusal(store.claim({ tenantId: "tenant_a", key: "k2", argumentDigest: "d", now: 0, leaseMs: LEASE }))).toBe("JOURNAL_CLOSED");
      expect(await refusal(store.complete({ tenantId: "tenant_a", key: "k", argumentDigest: "d", outcome: ok("late"), now: 1 }))).toBe("JOURNAL_CLOSED");
      await store.close();
    });

    it("32 concurrent submissions of one key run the effect exactly once and all get its outcome", async () => {
      let runs = 0;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const effect = async () => {
        runs += 1;
        await gate;
        return ok("once");
      };
      const submissions = Array.from({ length: 32 }, () => submit(store, "tenant_a", "k", "d", effect));
      await new Promise<void>((resolve) => setImmediate(resolve));
      release();
      const outcomes = await Promise.all(submissions);
      expect(runs).toBe(1);
      expect(outcomes).toEqual(Array.from({ length: 32 }, () => ok("once")));
    });
  });
}

/**
 * The tests `describeIdempotencyStoreContract` registers, as data. Register them with a
 * literal `describe` and `it.for`, and `vitest list` (a static read of the test file) shows
 * the contract suite.
 *
 * @example
 * ```ts
 * const contract = idempotencyStoreContractTests("memory", async () => ({ store: createMemoryIdempotencyStore() }));
 * describe("IdempotencyStoreV1 contract: memory", () => {
 *   it.for(contract.tests)("$title", (test) => test.run());
 * });
 * ```
 */
export function idempotencyStoreContractTests(name: string, factory: IdempotencyStoreFactory): ContractTests {
  return recordContractTests(() => describeIdempotencyStoreContract(name, factory));
}
