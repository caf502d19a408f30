import { createHash } from "node:crypto";
import { YokeError, canonicalJson, type Clock, type IdempotencyOutcome, type IdempotencyStoreV1, type JsonValue } from "@yoke/protocol";
import { messageOf } from "./envelopes.js";

/**
 * SHA-256 of the canonical JSON of `args`, hex: equal for equal arguments whatever their key
 * order. The `argumentDigest` an `IdempotencyStoreV1` claim carries, so a store tells a repeat
 * from a reuse of the key with other arguments.
 *
 * @example
 * ```ts
 * argumentDigest({ a: 1, b: 2 }) === argumentDigest({ b: 2, a: 1 }); // true
 * ```
 */
export function argumentDigest(args: JsonValue): string {
  return createHash("sha256").update(canonicalJson(args)).digest("hex");
}

export interface IdempotentCallOptions {
  readonly store: IdempotencyStoreV1;
  readonly tenantId: string;
  readonly key: string;
  readonly args: JsonValue;
  readonly clock: Clock;
  /** How long a claim holds before another submission may take over a key whose owner died. Default 30 s. */
  readonly leaseMs?: number;
  /** How a submission that finds the key in progress waits before it claims again. Default: one turn of the event loop. */
  readonly wait?: () => Promise<void>;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs `effect` at most once per (tenant, key), Stripe-style: a repeat with the same
 * arguments gets the stored outcome (a failure is stored and replayed too); a repeat with
 * other arguments is rejected with IDEMPOTENCY_KEY_REUSED; concurrent submissions wait for
 * the one that claimed the key and get its outcome.
 *
 * @example
 * ```ts
 * const outcome = await callIdempotently({ store, tenantId, key: actionId, args: input, clock }, () => bank.transfer(input));
 * if (outcome.status === "succeeded") use(outcome.value);
 * ```
 */
export async function callIdempotently(options: IdempotentCallOptions, effect: () => Promise<JsonValue>): Promise<IdempotencyOutcome> {
  const { store, tenantId, key, clock } = options;
  const digest = argumentDigest(options.args);
  const leaseMs = options.leaseMs ?? 30_000;
  const wait = options.wait ?? nextTurn;
  for (;;) {
    const claim = await store.claim({ tenantId, key, argumentDigest: digest, now: clock.now(), leaseMs });
    switch (claim.kind) {
      case "completed":
        return claim.outcome;
      case "mismatch":
        throw new YokeError("IDEMPOTENCY_KEY_REUSED", `idempotency key ${key} was already used with other arguments`, {
          details: { tenantId, key, storedDigest: claim.storedDigest, argumentDigest: digest },
        });
      case "in_progress":
        await wait();
        continue;
      case "claimed": {
        let outcome: IdempotencyOutcome;
        try {
          outcome = { status: "succeeded", value: await effect() };
        } catch (error) {
          const code = YokeError.isInstance(error) ? error.code : "TOOL_FAILED";
          outcome = { status: "failed", error: { code, message: messageOf(error) } };
        }
        await store.complete({ tenantId, key, argumentDigest: digest, outcome, now: clock.now() });
        return outcome;
      }
    }
  }
}
