import { YokeError, type AppendOptions, type LeaseRequest, type RunLease, type RunScope } from "@yoke/protocol";

/** A run's latest lease as a store keeps it: the public lease and whether it was released. */
export interface StoredLease {
  readonly lease: RunLease;
  readonly released: boolean;
}

/** Live: neither released nor past its expiry on the store's clock. */
export function isLive(stored: StoredLease, now: number): boolean {
  return !stored.released && stored.lease.expiresAt > now;
}

/**
 * The lease an acquisition produces over the run's latest one, or RUN_LEASE_HELD. Shared by
 * every store, so the rules cannot drift apart: a live lease is never taken (unless its
 * owner is known gone), and the token only grows. `now` is the store's time; `lastIssued`
 * the last token the store handed out for any run (its one counter): the new token is above
 * it and above the run's own (a file from before the counter may hold a higher per-run one).
 */
export function nextLease(scope: RunScope, current: StoredLease | null, request: LeaseRequest, now: number, lastIssued: number): RunLease {
  if (current !== null && isLive(current, now) && request.ownerIsGone?.(current.lease) !== true) {
    throw new YokeError("RUN_LEASE_HELD", `run ${scope.runId} is owned by ${current.lease.ownerId} until ${new Date(current.lease.expiresAt).toISOString()}`, {
      details: {
        tenantId: scope.tenantId,
        runId: scope.runId,
        ownerId: current.lease.ownerId,
        expiresAt: current.lease.expiresAt,
        token: current.lease.token,
        // What is left on the store's clock: a waiter sleeps by this, never by its own clock against `expiresAt`.
        remainingMs: current.lease.expiresAt - now,
      },
    });
  }
  return {
    tenantId: scope.tenantId,
    runId: scope.runId,
    ownerId: request.ownerId,
    token: Math.max(lastIssued, current?.lease.token ?? 0) + 1,
    expiresAt: now + request.ttlMs,
  };
}

/** RUN_LEASE_LOST unless `lease` is the run's current, unreleased lease. */
export function checkCurrent(lease: RunLease, current: StoredLease | null): void {
  if (current === null || current.released || current.lease.token !== lease.token || current.lease.ownerId !== lease.ownerId) {
    throw lostError(lease, current);
  }
}

/**
 * The lease check of an append, run inside its transaction (see `RunLeasesV1`). `now` reads
 * the store's time, asked only when a lease-less append meets an unreleased lease (a SQLite
 * store reads it with a statement of its own).
 */
export function checkAppendLease(scope: RunScope, current: StoredLease | null, options: AppendOptions | undefined, now: () => number): void {
  const writer = options?.lease;
  if (writer === undefined) {
    if (current !== null && !current.released && isLive(current, now())) {
      throw new YokeError("RUN_LEASE_HELD", `run ${scope.runId} is owned by ${current.lease.ownerId}; an append must carry its lease`, {
        details: { tenantId: scope.tenantId, runId: scope.runId, ownerId: current.lease.ownerId, token: current.lease.token },
      });
    }
    return;
  }
  checkCurrent({ ...scope, ownerId: writer.ownerId, token: writer.token, expiresAt: 0 }, current);
}

/** Whether `checkAppendLease` will ask for the store's time: a lease-less append meeting an unreleased lease. */
export function appendLeaseNeedsTime(current: StoredLease | null, options: AppendOptions | undefined): boolean {
  return options?.lease === undefined && current !== null && !current.released;
}

export function checkLeaseRequest(request: LeaseRequest): void {
  if (typeof request?.ownerId !== "string" || request.ownerId === "") {
    throw new YokeError("CONFIG_INVALID", "a lease needs a non-empty ownerId");
  }
  if (!Number.isSafeInteger(request.ttlMs) || request.ttlMs <= 0) {
    throw new YokeError("CONFIG_INVALID", "a lease needs a positive integer ttlMs", { details: { ttlMs: request.ttlMs } });
  }
}

export function checkTtl(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) throw new YokeError("CONFIG_INVALID", "ttlMs must be a positive integer", { details: { ttlMs } });
}

// The messages of these refusals are for people: callers and the lease contract go by the code
// and the `details` (asserted exactly in the testkit's lease contract); the text is asserted
// only as far as naming what is wrong (the holder, the field), not word for word.
function lostError(lease: RunLease, current: StoredLease | null): YokeError {
  const now =
    current === null
      ? "no lease"
      : current.released
        ? `a released lease (token ${current.lease.token})`
        : `token ${current.lease.token} of ${current.lease.ownerId}`;
  return new YokeError("RUN_LEASE_LOST", `run ${lease.runId}: the writer's lease (token ${lease.token}) is not current; the run has ${now}`, {
    details: {
      tenantId: lease.tenantId,
      runId: lease.runId,
      token: lease.token,
      currentToken: current?.lease.token ?? null,
      currentOwnerId: current?.lease.ownerId ?? null,
    },
  });
}
