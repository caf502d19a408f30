import { YokeError, type RunLease, type RunLeasesV1, type RunScope } from "@yoke/protocol";
import type { Timers } from "@yoke/scheduler";
import type { BoundLogger as Logger } from "./logger.js";
import type { Sleep } from "./model-call.js";
import { ownerCertainlyGone, processOwnerId } from "./owner-identity.js";

/**
 * How a harness owns the runs it drives, when its journal offers leases (`journal.leases`).
 * `start` and `resume` take the run's lease before anything else, renew it while the run
 * goes on, and release it when they return; every append carries it, and every tool gets its
 * fencing token. A second `resume` of a run whose lease is live is refused (RUN_LEASE_HELD),
 * or waits with `waitForLease`.
 *
 * @example
 * ```ts
 * const harness = createHarness({ journal, provider, tools, tenantId, lease: { ttlMs: 15_000 } });
 * ```
 */
export interface LeaseOptions {
  /** How long a lease lives without a renewal. Default 30,000 ms. */
  readonly ttlMs?: number;
  /** How often a running run renews its lease. Default a third of `ttlMs`. */
  readonly renewEveryMs?: number;
  /**
   * Names this harness in the lease (shown to losers). Default `processOwnerId()`:
   * `yoke:<host>:<pid>:<random>:<boot id>:<pid namespace>:<start time>` on Linux.
   */
  readonly ownerId?: string;
  /**
   * Whether a live lease's owner is certainly gone, so it may be taken before it expires.
   * Default `ownerCertainlyGone`: an owner named the default way, on this boot of this machine
   * and in this PID namespace, whose pid names no process now or one started at another time
   * (after a `kill -9`, or a container restart that reuses the pid, a resume need not wait out
   * the lease). Anything else, another PID namespace included, is waited out.
   */
  readonly ownerIsGone?: (lease: RunLease) => boolean;
}

export const DEFAULT_LEASE_TTL_MS = 30_000;

/** Resolved lease settings; `undefined` when the journal offers no leases or they are turned off. */
export interface LeasePolicy {
  readonly leases: RunLeasesV1;
  readonly ttlMs: number;
  readonly renewEveryMs: number;
  readonly ownerId: string;
  readonly ownerIsGone: (lease: RunLease) => boolean;
}

export function resolveLeasePolicy(leases: RunLeasesV1 | undefined, options: LeaseOptions | false | undefined): LeasePolicy | undefined {
  if (leases === undefined || options === false) return undefined;
  const ttlMs = options?.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  const renewEveryMs = options?.renewEveryMs ?? Math.max(1, Math.floor(ttlMs / 3));
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) throw invalid("lease.ttlMs must be a positive integer");
  if (!Number.isSafeInteger(renewEveryMs) || renewEveryMs < 1 || renewEveryMs >= ttlMs) {
    throw invalid("lease.renewEveryMs must be a positive integer below ttlMs");
  }
  const ownerId = options?.ownerId ?? processOwnerId();
  if (typeof ownerId !== "string" || ownerId === "") throw invalid("lease.ownerId must be a non-empty string");
  return { leases, ttlMs, renewEveryMs, ownerId, ownerIsGone: options?.ownerIsGone ?? ((lease) => ownerCertainlyGone(lease)) };
}

/** A lease this process holds on one run, renewed on a timer until `end`. */
export interface HeldLease {
  /** The lease as last renewed. */
  current(): RunLease;
  /** Aborted with RUN_LEASE_LOST when a renewal finds the run was taken over. */
  readonly lost: AbortSignal;
  /** Stops renewing and releases the lease (quietly: it may already be gone). */
  end(): Promise<void>;
}

export interface TakeLeaseOptions {
  /** Wait for a live lease to lapse instead of failing with RUN_LEASE_HELD; a number bounds the wait (ms). */
  readonly wait?: boolean | number;
  readonly signal?: AbortSignal | undefined;
  readonly sleep: Sleep;
  readonly timers: Timers;
  readonly now: () => number;
  readonly logger: Logger;
}

/** Takes the run's lease (waiting if asked) and starts renewing it. */
export async function takeRunLease(policy: LeasePolicy, scope: RunScope, options: TakeLeaseOptions): Promise<HeldLease> {
  const waitUntil =
    options.wait === undefined || options.wait === false ? undefined : options.now() + (options.wait === true ? Number.POSITIVE_INFINITY : options.wait);
  let lease: RunLease;
  for (;;) {
    try {
      lease = await policy.leases.acquire(scope, { ownerId: policy.ownerId, ttlMs: policy.ttlMs, ownerIsGone: policy.ownerIsGone });
      break;
    } catch (error) {
      if (!YokeError.hasCode(error, "RUN_LEASE_HELD") || waitUntil === undefined || options.now() >= waitUntil) throw error;
      // The lease lapses on the store's clock: sleep by what the store says is left (a store that
      // does not say gets a renewal period), never by this harness's clock against `expiresAt`.
      const remainingMs = typeof error.details.remainingMs === "number" ? error.details.remainingMs : policy.renewEveryMs;
      const waitMs = Math.max(1, Math.min(remainingMs, waitUntil - options.now(), policy.renewEveryMs));
      options.logger.info({ ownerId: error.details.ownerId, waitMs }, "run is owned elsewhere; waiting for its lease");
      await options.sleep(waitMs, options.signal);
    }
  }
  return heartbeat(policy, lease, options);
}

function heartbeat(policy: LeasePolicy, first: RunLease, options: TakeLeaseOptions): HeldLease {
  let lease = first;
  let ended = false;
  let timer: unknown;
  const lost = new AbortController();
  const schedule = () => {
    timer = options.timers.setTimeout(() => void renew(), policy.renewEveryMs);
    (timer as { unref?: () => void } | undefined)?.unref?.();
  };
  const renew = async () => {
    if (ended) return;
    try {
      lease = await policy.leases.renew(lease, policy.ttlMs);
    } catch (error) {
      if (YokeError.hasCode(error, "RUN_LEASE_LOST")) {
        options.logger.warn({ token: lease.token }, "the run's lease was taken over; stopping");
        lost.abort(error);
        return;
      }
      // A busy store: try again at the next beat; the lease outlives a few missed renewals.
      options.logger.warn({ code: YokeError.isInstance(error) ? error.code : undefined }, "lease renewal failed; retrying");
    }
    if (!ended) schedule();
  };
  schedule();
  return {
    current: () => lease,
    lost: lost.signal,
    async end() {
      if (ended) return;
      ended = true;
      options.timers.clearTimeout(timer);
      try {
        await policy.leases.release(lease);
      } catch {
        // Released or taken over already; an unreleased lease lapses at its expiry.
      }
    },
  };
}

/**
 * @deprecated Use `ownerCertainlyGone`. Kept under its old name; it no longer trusts a host
 * name and a missing pid (another PID namespace has other pids), only what proves death.
 */
export const sameHostProcessGone: (lease: RunLease) => boolean = (lease) => ownerCertainlyGone(lease);

function invalid(message: string): YokeError {
  return new YokeError("CONFIG_INVALID", `createHarness: ${message}`, { details: { option: "lease" } });
}
