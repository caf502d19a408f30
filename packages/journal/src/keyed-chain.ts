import { createHmac, createSecretKey, type KeyObject } from "node:crypto";
import { YokeError, type JournalKey, type JournalKeyProvider, type VerifyResult } from "@yoke/protocol";
import { JOURNAL_KEY_ID_PATTERN } from "@yoke/protocol/journal-utils";

/** The option both stores take to key their chain (`createMemoryJournal`, `createSqliteJournal`). */
export interface JournalKeyOptions {
  /**
   * Seal and verify every event of every run with HMAC-SHA256 under the tenant's key from
   * this provider. Without it (the default) the chain is plain SHA-256, which anyone who can
   * write the store can recompute. A keyed journal refuses events with a plain hash.
   */
  readonly keys?: JournalKeyProvider;
}

/** The keys of a store's options, or undefined for an unkeyed store. */
export function keyRingOf(options: JournalKeyOptions | undefined): JournalKeyRing | undefined {
  return options?.keys === undefined ? undefined : new JournalKeyRing(options.keys);
}

/** The prefix of a keyed event hash: `hmac-sha256:<keyId>:<64 hex>`. */
export const HMAC_HASH_PREFIX = "hmac-sha256:";

/** Shortest key material a provider may hand out (HMAC-SHA256 itself takes any length). */
export const MIN_KEY_BYTES = 16;

/** A provider's key, ready to seal and check with. */
export interface ChainKey {
  readonly keyId: string;
  /** `hmac-sha256:<keyId>:`, the start of every hash this key seals. */
  readonly tag: string;
  readonly secret: KeyObject;
  readonly material: Buffer;
  readonly source: JournalKey;
}

/**
 * The seal of one event under `key`: `tag + hex(HMAC-SHA256(key, tag + body))`, where `body`
 * is the canonical JSON `computeEventHash` digests. The tag is inside the MAC, so a hash
 * cannot be relabelled with another key id.
 */
export function hmacSeal(key: ChainKey, body: string): string {
  return key.tag + createHmac("sha256", key.secret).update(key.tag).update(body).digest("hex");
}

/** The key id a keyed hash names, or undefined for a plain SHA-256 hash (or garbage). */
export function keyIdOf(hash: string): string | undefined {
  if (!hash.startsWith(HMAC_HASH_PREFIX)) return undefined;
  const end = hash.length - 65;
  return end > HMAC_HASH_PREFIX.length && hash.charCodeAt(end) === 58 /* ":" */ ? hash.slice(HMAC_HASH_PREFIX.length, end) : undefined;
}

/** A check failure without its seq (the caller knows it). */
export type HashProblem = Pick<Extract<VerifyResult, { ok: false }>, "reason" | "message">;

/**
 * Checks `hash` against `body` under the tenant's keys that are already resolved. A key id
 * not resolved yet is `key_mismatch`: callers that may ask the provider (see
 * `JournalKeyRing.lookup`) do so and check again.
 */
export function checkKeyedHash(keys: JournalKeyRing, tenantId: string, body: string, hash: string): HashProblem | null {
  const keyId = keyIdOf(hash);
  if (keyId === undefined) return { reason: "unkeyed", message: "the event carries a plain SHA-256 hash, but this journal is keyed" };
  const key = keys.cached(tenantId, keyId);
  if (key === undefined) return { reason: "key_mismatch", message: `the event names key ${keyId}, which the key provider does not hold for this tenant` };
  if (hmacSeal(key, body) !== hash) {
    return { reason: "hash_mismatch", message: `event content does not match its HMAC under key ${keyId} (edited, or sealed with other key material)` };
  }
  return null;
}

/**
 * The keys of one keyed journal: asks its `JournalKeyProvider` and remembers what it
 * answered per (tenant, key id), so verifying a run costs the provider one call per key id.
 * `keyFor` is asked on every append, so the provider decides when to rotate.
 */
export class JournalKeyRing {
  private readonly provider: JournalKeyProvider;
  private readonly tenants = new Map<string, Map<string, ChainKey>>();

  constructor(provider: JournalKeyProvider) {
    if (typeof provider !== "object" || provider === null || typeof provider.keyFor !== "function") {
      throw new YokeError("CONFIG_INVALID", "keys must be a JournalKeyProvider: an object with keyFor(tenantId)");
    }
    if (provider.keyById !== undefined && typeof provider.keyById !== "function") {
      throw new YokeError("CONFIG_INVALID", "keys.keyById must be a function when given");
    }
    this.provider = provider;
  }

  /** The key the tenant's next events are sealed with. Throws JOURNAL_KEY_UNAVAILABLE. */
  sealingKey(tenantId: string): ChainKey | Promise<ChainKey> {
    let answer: JournalKey | Promise<JournalKey>;
    try {
      answer = this.provider.keyFor(tenantId);
    } catch (error) {
      throw unavailable(tenantId, undefined, error);
    }
    if (!isThenable(answer)) return this.accept(tenantId, answer, undefined);
    return Promise.resolve(answer).then(
      (key) => this.accept(tenantId, key, undefined),
      (error: unknown) => {
        throw unavailable(tenantId, undefined, error);
      },
    );
  }

  /** A key this ring already holds, without asking the provider. */
  cached(tenantId: string, keyId: string): ChainKey | undefined {
    return this.tenants.get(tenantId)?.get(keyId);
  }

  /**
   * Finds a key by id: `keyById` when the provider has it, else the current key when its id
   * matches. `undefined` when the provider does not know the id; a throw is
   * JOURNAL_KEY_UNAVAILABLE.
   */
  async lookup(tenantId: string, keyId: string): Promise<ChainKey | undefined> {
    const known = this.cached(tenantId, keyId);
    if (known !== undefined) return known;
    let answer: JournalKey | undefined;
    try {
      answer = this.provider.keyById ? await this.provider.keyById(tenantId, keyId) : await this.provider.keyFor(tenantId);
    } catch (error) {
      throw unavailable(tenantId, keyId, error);
    }
    if (answer === undefined) return undefined;
    if (this.provider.keyById === undefined) {
      const current = this.accept(tenantId, answer, undefined);
      return current.keyId === keyId ? current : undefined;
    }
    return this.accept(tenantId, answer, keyId);
  }

  private accept(tenantId: string, key: JournalKey, expectedKeyId: string | undefined): ChainKey {
    if (typeof key !== "object" || key === null || typeof key.keyId !== "string" || !JOURNAL_KEY_ID_PATTERN.test(key.keyId)) {
      throw unavailable(tenantId, expectedKeyId, undefined, "the provider returned no key, or a key id that is not 1-64 of [A-Za-z0-9._-]");
    }
    if (!(key.key instanceof Uint8Array) || key.key.byteLength < MIN_KEY_BYTES) {
      throw unavailable(tenantId, key.keyId, undefined, `key material must be a Uint8Array of at least ${MIN_KEY_BYTES} bytes`);
    }
    if (expectedKeyId !== undefined && key.keyId !== expectedKeyId) {
      throw unavailable(tenantId, expectedKeyId, undefined, `asked for key ${expectedKeyId}, the provider returned ${key.keyId}`);
    }
    let keys = this.tenants.get(tenantId);
    const known = keys?.get(key.keyId);
    if (known !== undefined && (known.source === key || known.material.equals(key.key))) return known;
    const resolved = chainKeyOf(key);
    if (keys === undefined) {
      keys = new Map();
      this.tenants.set(tenantId, keys);
    }
    keys.set(key.keyId, resolved);
    return resolved;
  }
}

/** A checked `JournalKey` (id pattern and length are the caller's to check) ready to seal with. */
export function chainKeyOf(key: JournalKey): ChainKey {
  const material = Buffer.from(key.key);
  return { keyId: key.keyId, tag: `${HMAC_HASH_PREFIX}${key.keyId}:`, secret: createSecretKey(material), material, source: key };
}

/** The ok result of `verify`, with the chain's form and the key ids it met. */
export class ChainReport {
  private readonly keyed: boolean;
  private readonly keyIds: string[] = [];
  private lastTag = "";

  constructor(keyed: boolean) {
    this.keyed = keyed;
  }

  note(hash: string): void {
    if (!this.keyed || (this.lastTag !== "" && hash.startsWith(this.lastTag))) return;
    const keyId = keyIdOf(hash);
    if (keyId === undefined) return;
    this.lastTag = `${HMAC_HASH_PREFIX}${keyId}:`;
    if (!this.keyIds.includes(keyId)) this.keyIds.push(keyId);
  }

  result(events: number, headHash: string): Extract<VerifyResult, { ok: true }> {
    return { ok: true, events, headHash, chain: this.keyed ? "hmac-sha256" : "sha256", keyIds: [...this.keyIds] };
  }
}

function unavailable(tenantId: string, keyId: string | undefined, cause: unknown, why?: string): YokeError {
  if (YokeError.hasCode(cause, "JOURNAL_KEY_UNAVAILABLE")) return cause;
  const reason = why ?? (cause instanceof Error ? cause.message : String(cause));
  return new YokeError("JOURNAL_KEY_UNAVAILABLE", `no usable journal key for tenant ${tenantId}${keyId === undefined ? "" : ` (key ${keyId})`}: ${reason}`, {
    details: { tenantId, keyId: keyId ?? null },
    ...(cause === undefined ? {} : { cause }),
  });
}

function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}
