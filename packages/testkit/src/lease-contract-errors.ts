import type { Clock, RunLease, RunLeasesV1 } from "@yoke/protocol";
import { expect } from "vitest";
import { it } from "./contract-recorder.js";
import { eventDraft, runStartedDraft } from "./event-drafts.js";
import { collect, expectYokeError, scopeOf, type StoreContext } from "./journal-contract-support.js";

const TTL = 1_000;

/** TTLs no store may accept: zero, negative, fractional, not a number, unbounded, unsafe. */
const BAD_TTLS = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53];

/**
 * The lease contract's refusals, with the details a caller acts on: bad requests
 * (CONFIG_INVALID, `details.ttlMs`), RUN_LEASE_HELD and RUN_LEASE_LOST naming the holder and
 * the tokens, `release` ending a lease at once, and JOURNAL_CLOSED after `close`. Registered
 * inside `describeRunLeaseContract`.
 */
export function describeLeaseRefusals(context: StoreContext, leasesOf: () => RunLeasesV1, clock: Clock & { advance(ms: number): void }): void {
  it("refuses a TTL that is not a positive safe integer, on acquire and on renew: CONFIG_INVALID with details.ttlMs, nothing changed", async () => {
    const leases = leasesOf();
    const scope = scopeOf("run_lease_ttl");
    for (const ttlMs of BAD_TTLS) {
      const refused = await expectYokeError(leases.acquire(scope, { ownerId: "owner_a", ttlMs }), "CONFIG_INVALID");
      expect(refused.details, `acquire with ttlMs ${ttlMs}`).toEqual({ ttlMs });
      expect(refused.message).toContain("ttlMs");
    }
    expect(await leases.current(scope)).toBeNull();
    const first = await leases.acquire(scope, { ownerId: "owner_a", ttlMs: TTL });
    for (const ttlMs of BAD_TTLS) {
      const refused = await expectYokeError(leases.renew(first, ttlMs), "CONFIG_INVALID");
      expect(refused.details, `renew with ttlMs ${ttlMs}`).toEqual({ ttlMs });
      expect(refused.message).toContain("ttlMs");
    }
    expect(await leases.current(scope)).toEqual(first);
    expect((await leases.renew(first, 1)).expiresAt).toBe(clock.now() + 1);
  });

  it("refuses a lease request without a non-empty string ownerId, or no request at all, with CONFIG_INVALID", async () => {
    const leases = leasesOf();
    const scope = scopeOf("run_lease_owner");
    for (const ownerId of ["", 42, undefined, null]) {
      const refused = await expectYokeError(leases.acquire(scope, { ownerId, ttlMs: TTL } as never), "CONFIG_INVALID");
      expect(refused.message).toContain("ownerId");
    }
    await expectYokeError(leases.acquire(scope, undefined as never), "CONFIG_INVALID");
    expect(await leases.current(scope)).toBeNull();
  });

  it("names the live holder in RUN_LEASE_HELD: details on acquire and on an append without a lease", async () => {
    const { journal } = context;
    const leases = leasesOf();
    const scope = scopeOf("run_lease_held");
    const first = await leases.acquire(scope, { ownerId: "owner_a", ttlMs: TTL });
    const held = await expectYokeError(leases.acquire(scope, { ownerId: "owner_b", ttlMs: TTL }), "RUN_LEASE_HELD");
    expect(held.details).toEqual({ ...scope, ownerId: "owner_a", expiresAt: first.expiresAt, token: 1, remainingMs: TTL });
    expect(held.retryable).toBe(true);
    expect(held.message).toContain("owner_a");
    const append = await expectYokeError(journal.append(scope, 0, [runStartedDraft()]), "RUN_LEASE_HELD");
    expect(append.details).toEqual({ ...scope, ownerId: "owner_a", token: 1 });
    expect(append.message).toContain("owner_a");
    expect(await journal.head(scope)).toBeNull();
  });

  it("names the writer's token and the run's current lease in RUN_LEASE_LOST: no lease, taken over, another owner's token, released, the same owner's older token", async () => {
    const { journal } = context;
    const leases = leasesOf();
    const scope = scopeOf("run_lease_lost");
    const lost = (token: number, currentToken: number | null, currentOwnerId: string | null) => ({ ...scope, token, currentToken, currentOwnerId });
    const never: RunLease = { ...scope, ownerId: "owner_a", token: 1, expiresAt: clock.now() + TTL };
    // The run never had a lease.
    expect((await expectYokeError(leases.renew(never, TTL), "RUN_LEASE_LOST")).details).toEqual(lost(1, null, null));
    expect((await expectYokeError(journal.append(scope, 0, [runStartedDraft()], { lease: never }), "RUN_LEASE_LOST")).details).toEqual(lost(1, null, null));
    expect(await leases.current(scope)).toBeNull();
    // Taken over after expiry.
    const first = await leases.acquire(scope, { ownerId: "owner_a", ttlMs: TTL });
    clock.advance(TTL);
    const second = await leases.acquire(scope, { ownerId: "owner_b", ttlMs: TTL });
    expect((await expectYokeError(leases.renew(first, TTL), "RUN_LEASE_LOST")).details).toEqual(lost(1, 2, "owner_b"));
    // The current token under another owner's name is not the current lease.
    const forged = { ...second, ownerId: "owner_c" };
    expect((await expectYokeError(leases.renew(forged, TTL), "RUN_LEASE_LOST")).details).toEqual(lost(2, 2, "owner_b"));
    const forgedAppend = journal.append(scope, 0, [runStartedDraft()], { lease: { ownerId: "owner_c", token: 2 } });
    expect((await expectYokeError(forgedAppend, "RUN_LEASE_LOST")).details).toEqual(lost(2, 2, "owner_b"));
    await journal.append(scope, 0, [runStartedDraft()], { lease: second });
    // Released: the latest lease is still owner_b's token 2, but it is over.
    await leases.release(second);
    expect((await expectYokeError(leases.renew(second, TTL), "RUN_LEASE_LOST")).details).toEqual(lost(2, 2, "owner_b"));
    const afterRelease = journal.append(scope, 1, [eventDraft("test.noted", {})], { lease: second });
    expect((await expectYokeError(afterRelease, "RUN_LEASE_LOST")).details).toEqual(lost(2, 2, "owner_b"));
    // The same owner's older token: owner_b took the run again (token 3), so token 2 is stale.
    const third = await leases.acquire(scope, { ownerId: "owner_b", ttlMs: TTL });
    expect(third.token).toBe(3);
    expect((await expectYokeError(leases.renew(second, TTL), "RUN_LEASE_LOST")).details).toEqual(lost(2, 3, "owner_b"));
    const staleAppend = journal.append(scope, 1, [eventDraft("test.noted", {})], { lease: { ownerId: "owner_b", token: 2 } });
    expect((await expectYokeError(staleAppend, "RUN_LEASE_LOST")).details).toEqual(lost(2, 3, "owner_b"));
    expect((await journal.head(scope))?.length).toBe(1);
  });

  it("ends a released lease at once (current shows it expiring at the release), never later than it would have", async () => {
    const leases = leasesOf();
    const scope = scopeOf("run_lease_release");
    const first = await leases.acquire(scope, { ownerId: "owner_a", ttlMs: TTL });
    clock.advance(10);
    await leases.release(first);
    expect(await leases.current(scope)).toEqual({ ...first, expiresAt: clock.now() });
    const second = await leases.acquire(scope, { ownerId: "owner_b", ttlMs: TTL });
    clock.advance(3 * TTL);
    await leases.release(second);
    expect(await leases.current(scope)).toEqual(second);
  });

  it("refuses every lease call after close with JOURNAL_CLOSED", async () => {
    const { journal } = context;
    const leases = leasesOf();
    const scope = scopeOf("run_lease_closed");
    const first = await leases.acquire(scope, { ownerId: "owner_a", ttlMs: TTL });
    await journal.close();
    await expectYokeError(leases.acquire(scopeOf("run_lease_other"), { ownerId: "owner_b", ttlMs: TTL }), "JOURNAL_CLOSED");
    await expectYokeError(leases.renew(first, TTL), "JOURNAL_CLOSED");
    await expectYokeError(leases.release(first), "JOURNAL_CLOSED");
    await expectYokeError(leases.current(scope), "JOURNAL_CLOSED");
    await expectYokeError(collect(journal.read(scope)), "JOURNAL_CLOSED");
  });
}
