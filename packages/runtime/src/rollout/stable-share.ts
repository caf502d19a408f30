import { createHash } from "node:crypto";

/** 2^48: the first six bytes of a SHA-256 read as an integer are below it. */
const BUCKETS = 2 ** 48;

/**
 * Where `key` falls in [0, 1): the first 48 bits of its SHA-256 over 2^48. The same key
 * always falls in the same place, on every process and version, and a key that falls below a
 * share stays below every larger share (raising a canary's share never moves a run back).
 */
export function stableFraction(key: string): number {
  return createHash("sha256").update(key, "utf8").digest().readUIntBE(0, 6) / BUCKETS;
}
