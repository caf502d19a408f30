import type { EventDraft, JournalEvent } from "./events.js";

/** Every journal call names the tenant; there is no call that reads across tenants. */
export interface RunScope {
  readonly tenantId: string;
  readonly runId: string;
}

export interface AppendResult {
  /** Sequence number of the last appended event. */
  readonly lastSeq: number;
  /** Hash of the last appended event: the new head of the chain. */
  readonly headHash: string;
  /** The stored events, envelopes included. */
  readonly events: readonly JournalEvent[];
}

export interface JournalHead {
  /** Number of events in the run; the next append must name this as its expected sequence. */
  readonly length: number;
  /** Hash of the last event (GENESIS_HASH for an empty run). */
  readonly hash: string;
}

/**
 * Why `verify` rejected an event:
 * - `hash_mismatch`: the content does not match its hash (or, in a keyed chain, its HMAC
 *   under the key it names: edited, or sealed with other key material under that id);
 * - `prev_hash_mismatch`, `sequence_gap`, `malformed`, `scope_mismatch`: as named;
 * - `unkeyed`: a keyed journal met a plain SHA-256 hash, which anyone can compute;
 * - `key_mismatch`: the hash names a key id the key provider does not hold for the tenant;
 * - `key_required`: an unkeyed journal met an HMAC-sealed event it has no key to check.
 */
export type VerifyFailureReason =
  | "hash_mismatch"
  | "prev_hash_mismatch"
  | "sequence_gap"
  | "malformed"
  | "scope_mismatch"
  | "unkeyed"
  | "key_mismatch"
  | "key_required"
  /** The run holds fewer events than its head witness says were acknowledged (`firstBadSeq`: the first missing one). */
  | "truncated"
  /** The event the head witness names has another hash: the tail was rewritten. */
  | "witness_mismatch";

export type VerifyResult =
  | {
      readonly ok: true;
      readonly events: number;
      readonly headHash: string;
      /**
       * The chain's form: `"sha256"` (unkeyed) or `"hmac-sha256"` (keyed per tenant). The
       * stores of `@yoke/journal` always report it; a third-party store may omit it.
       */
      readonly chain?: "sha256" | "hmac-sha256";
      /** The key ids that sealed the run's events, in order of first use (empty when unkeyed). */
      readonly keyIds?: readonly string[];
    }
  | {
      readonly ok: false;
      /** Sequence number of the first event that fails; every event before it verified. */
      readonly firstBadSeq: number;
      readonly reason: VerifyFailureReason;
      readonly message: string;
    };

/** A secret key of a keyed journal chain. `keyId` matches `JOURNAL_KEY_ID_PATTERN`. */
export interface JournalKey {
  readonly keyId: string;
  /** HMAC-SHA256 key material: at least 16 bytes (32 random bytes recommended). */
  readonly key: Uint8Array;
}

/**
 * Where a keyed journal gets its keys, per tenant. `keyFor` names the key new events are
 * sealed with (called on every append, so returning a new key rotates); `keyById` finds an
 * older key to verify events it sealed (without it, only the current key verifies). Either
 * may be async (a KMS); a throw is JOURNAL_KEY_UNAVAILABLE. A key id the provider does not
 * know for that tenant (`undefined`) fails verification.
 *
 * @example
 * ```ts
 * const keys: JournalKeyProvider = {
 *   keyFor: (tenantId) => ({ keyId: "k2", key: secrets.get(tenantId, "k2") }),
 *   keyById: (tenantId, keyId) => {
 *     const key = secrets.get(tenantId, keyId);
 *     return key === undefined ? undefined : { keyId, key };
 *   },
 * };
 * const journal = createMemoryJournal({ keys });
 * ```
 */
export interface JournalKeyProvider {
  keyFor(tenantId: string): JournalKey | Promise<JournalKey>;
  keyById?(tenantId: string, keyId: string): JournalKey | undefined | Promise<JournalKey | undefined>;
}

export interface ReadOptions {
  /** First sequence number to return (inclusive). Default (also when `undefined`) 0. */
  readonly fromSeq?: number | undefined;
  /** Last sequence number to return (exclusive). Default (also when `undefined`): the end. */
  readonly toSeq?: number | undefined;
}

export interface RunSummary {
  readonly tenantId: string;
  readonly runId: string;
  readonly length: number;
  readonly firstAt: number;
  readonly lastAt: number;
}

/**
 * One writer's hold on one run: only the holder of the run's current lease may append to it.
 * `token` is the fencing token: every acquisition, of any run, takes the next number of one
 * counter per store (never reused, even after a release), so a store, or a tool's backend
 * shared by many runs, can refuse a writer whose token is older than the newest it has seen
 * for a key or resource. (Files written before the counter keep their per-run tokens; every
 * later token is above all of them.)
 */
export interface RunLease {
  readonly tenantId: string;
  readonly runId: string;
  readonly ownerId: string;
  readonly token: number;
  /**
   * When the lease lapses unless renewed: milliseconds on the store's clock (SQLite: the
   * database's own time, read in the lease's transaction), never on a caller's clock.
   */
  readonly expiresAt: number;
}

export interface LeaseRequest {
  /** Who holds the lease: any stable string naming this process or worker (shown to the losers). */
  readonly ownerId: string;
  /** How long the lease lives without a renewal, in milliseconds. */
  readonly ttlMs: number;
  /**
   * Asked, inside the acquiring transaction, about a live lease held by another owner: true
   * only when that owner is certainly gone (a process whose death this host can prove), so
   * the lease may be taken before it expires; when in doubt, false (wait for expiry).
   * Default: never.
   */
  readonly ownerIsGone?: (lease: RunLease) => boolean;
}

/** The writer an append is made for: checked against the run's current lease in the append's own transaction. */
export interface AppendOptions {
  readonly lease?: { readonly ownerId: string; readonly token: number };
}

/**
 * Run ownership, for stores that offer it (`JournalV1.leases`). Every operation is one
 * transaction of the store, so two processes can never both hold a run.
 *
 * - `acquire` takes the run's lease, whether or not the run has events yet: RUN_LEASE_HELD
 *   (retryable; `details.ownerId`, `details.expiresAt`, and `details.remainingMs`, what is
 *   left of it on the store's clock) while another live lease exists.
 *   Live means unreleased and not past its expiry on the store's clock (the caller's clock
 *   decides nothing). The new lease's token is above every token the store handed out
 *   before, for any run.
 * - `renew` extends a lease still current (same token); RUN_LEASE_LOST once another
 *   acquisition has replaced it or it was released.
 * - `release` ends a current lease at once (a no-op for one already replaced).
 * - While a run has a live lease, an append without `options.lease`, or with another token,
 *   is refused: RUN_LEASE_HELD without one, RUN_LEASE_LOST with a stale one. An append with
 *   the current token succeeds even after expiry, as long as nobody took the run over.
 *
 * @example
 * ```ts
 * const lease = await journal.leases!.acquire(scope, { ownerId: "worker-7", ttlMs: 30_000 });
 * await journal.append(scope, head.length, drafts, { lease });
 * await journal.leases!.renew(lease, 30_000);
 * await journal.leases!.release(lease);
 * ```
 */
export interface RunLeasesV1 {
  acquire(scope: RunScope, request: LeaseRequest): Promise<RunLease>;
  renew(lease: RunLease, ttlMs: number): Promise<RunLease>;
  release(lease: RunLease): Promise<void>;
  /** The run's latest lease, live or not; null when it never had one. */
  current(scope: RunScope): Promise<RunLease | null>;
}

export interface JournalCapabilities {
  /** True when a resolved append survives a process crash. */
  readonly durable: boolean;
  /** True when several processes may append to one store. */
  readonly multiProcess: boolean;
}

/**
 * An append-only, per-run, hash-chained event log.
 *
 * - `append(scope, expectedSeq, drafts)` stores `drafts` as one transaction at sequence
 *   numbers `expectedSeq, expectedSeq + 1, …`. If the run does not have exactly
 *   `expectedSeq` events, it rejects with JOURNAL_CONFLICT (a stale writer) and writes
 *   nothing. When the promise resolves, the events are durable to the store's promise
 *   (`capabilities.durable`). The first event of a run (expectedSeq 0) must be
 *   `run.started`; appending seq 0 to an existing run is JOURNAL_CONFLICT.
 * - `read` streams events in sequence order, checking each event's integrity as it goes;
 *   a torn or edited event rejects with JOURNAL_CORRUPT or JOURNAL_CHAIN_BROKEN, never
 *   yields it.
 * - `verify` walks the whole chain and names the first bad event instead of throwing.
 *
 * @example
 * ```ts
 * const scope = { tenantId: "tenant_a", runId: "run_1" };
 * await journal.append(scope, 0, [{ type: "run.started", at: clock.now(), data: {...} }]);
 * for await (const event of journal.read(scope)) console.log(event.seq, event.type);
 * const report = await journal.verify(scope); // { ok: true, events: 1, headHash }
 * ```
 */
export interface JournalV1 {
  readonly specificationVersion: "v1";
  readonly capabilities: JournalCapabilities;
  append(scope: RunScope, expectedSeq: number, drafts: readonly EventDraft[], options?: AppendOptions): Promise<AppendResult>;
  read(scope: RunScope, options?: ReadOptions): AsyncIterable<JournalEvent>;
  /** The run's length and head hash; `null` when the run does not exist for this tenant. */
  head(scope: RunScope): Promise<JournalHead | null>;
  verify(scope: RunScope): Promise<VerifyResult>;
  /** The tenant's runs, ordered by run id. */
  listRuns(tenantId: string): AsyncIterable<RunSummary>;
  close(): Promise<void>;
  /** Run ownership (leases with fencing tokens), when the store offers it. */
  readonly leases?: RunLeasesV1;
}
