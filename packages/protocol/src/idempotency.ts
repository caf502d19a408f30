import type { JsonValue } from "./model.js";

/** What a completed submission stored: its value, or its failure (replayed as is). */
export type IdempotencyOutcome =
  | { readonly status: "succeeded"; readonly value: JsonValue }
  | { readonly status: "failed"; readonly error: { readonly code: string; readonly message: string } };

/** The answer to a claim on a key. */
export type IdempotencyClaim =
  /** The caller owns the key: run the effect, then `complete`. `reclaimed`: a previous owner's lease had expired. */
  | { readonly kind: "claimed"; readonly reclaimed: boolean }
  /** The key has an outcome: return it, do not run the effect. */
  | { readonly kind: "completed"; readonly outcome: IdempotencyOutcome }
  /** Another submission owns the key and its lease is live: wait and claim again. */
  | { readonly kind: "in_progress"; readonly claimedAt: number }
  /** The key was used with other arguments: a client bug, refused with IDEMPOTENCY_KEY_REUSED. */
  | { readonly kind: "mismatch"; readonly storedDigest: string };

export interface IdempotencyClaimRequest {
  readonly tenantId: string;
  readonly key: string;
  /** A digest of the canonical arguments (see `argumentDigest` in @yoke/scheduler). */
  readonly argumentDigest: string;
  /** The caller's clock. */
  readonly now: number;
  /** How long a claim holds before another submission may take the key over. */
  readonly leaseMs: number;
}

export interface IdempotencyCompleteRequest {
  readonly tenantId: string;
  readonly key: string;
  readonly argumentDigest: string;
  readonly outcome: IdempotencyOutcome;
  readonly now: number;
}

/**
 * Stripe-style idempotency records, namespaced by tenant: the same key with the same
 * argument digest returns the stored outcome (failures included); the same key with another
 * digest is a mismatch; of any number of concurrent claims on a fresh key exactly one wins.
 * `claim` is atomic; `complete` stores the outcome once (a second complete is ignored).
 *
 * @example
 * ```ts
 * const claim = await store.claim({ tenantId, key: actionId, argumentDigest, now: clock.now(), leaseMs: 30_000 });
 * if (claim.kind === "claimed") {
 *   const value = await effect();
 *   await store.complete({ tenantId, key: actionId, argumentDigest, outcome: { status: "succeeded", value }, now: clock.now() });
 * } else if (claim.kind === "completed") return claim.outcome;
 * ```
 */
export interface IdempotencyStoreV1 {
  readonly specificationVersion: "v1";
  claim(request: IdempotencyClaimRequest): Promise<IdempotencyClaim>;
  complete(request: IdempotencyCompleteRequest): Promise<void>;
  close(): Promise<void>;
}
