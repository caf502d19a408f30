import { createHash } from "node:crypto";
import type { JournalKey, JournalKeyProvider } from "@yoke/protocol";

/**
 * The contract's golden `run.started` (seq 0 of tenant_golden/run_golden) sealed under
 * `testKeys()`'s k1: pins the keyed hash format across stores and releases.
 */
export const KEYED_GOLDEN_HASH = "hmac-sha256:k1:7b20921240cd4b86d8bfa3f786a97df0cafdc5b854de62d1c0b594d090706995";

/** Deterministic key material for a tenant and key id: tests only. */
export function testKeyMaterial(tenantId: string, keyId: string): Buffer {
  return createHash("sha256").update(`yoke test journal key\n${tenantId}\n${keyId}`).digest();
}

/**
 * A key provider over a set of key ids, the same ids for every tenant (material differs per
 * tenant): `current` seals, every id in `known` verifies. Mutable, to rotate and revoke.
 */
export function testKeys(current = "k1"): {
  readonly provider: JournalKeyProvider;
  rotate(keyId: string): void;
  revoke(keyId: string): void;
  readonly calls: string[];
} {
  const known = new Set([current]);
  const calls: string[] = [];
  const keyOf = (tenantId: string, keyId: string): JournalKey => ({ keyId, key: testKeyMaterial(tenantId, keyId) });
  return {
    provider: {
      keyFor(tenantId) {
        calls.push(`keyFor ${tenantId}`);
        return keyOf(tenantId, current);
      },
      keyById(tenantId, keyId) {
        calls.push(`keyById ${tenantId} ${keyId}`);
        return known.has(keyId) ? keyOf(tenantId, keyId) : undefined;
      },
    },
    rotate(keyId) {
      current = keyId;
      known.add(keyId);
    },
    revoke(keyId) {
      known.delete(keyId);
    },
    calls,
  };
}
