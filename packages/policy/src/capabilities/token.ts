import { createHash, createHmac, createSecretKey, timingSafeEqual, type KeyObject } from "node:crypto";
import { CapabilityScopeSchema, type CapabilityScope } from "@yoke/protocol";
import { z } from "zod/v4";

/**
 * The token format: `ycap1.<payload>.<mac>`, both parts base64url. The payload is the
 * canonical JSON of the capability's id, parent, lineage (every ancestor, root first), scope
 * and key id; the mac is HMAC-SHA256 under the broker's key over the domain tag and the
 * payload. A token is self-describing, so a broker can check its lineage against revocations
 * without having minted it in this process.
 */
const PREFIX = "ycap1";
const TOKEN_DOMAIN = "yoke.capability.v1.";
const RECEIPT_DOMAIN = "yoke.capability-receipt.v1.";
const MAC_BYTES = 32;

const PayloadSchema = z
  .object({
    id: z.string().min(1),
    parentId: z.string().min(1).nullable(),
    lineage: z.array(z.string().min(1)),
    scope: CapabilityScopeSchema.strict(),
    keyId: z.string().min(1),
  })
  .strict();
export type TokenPayload = z.infer<typeof PayloadSchema>;

/** A broker's key, as bytes, with its id. */
export interface BrokerKey {
  /** A KeyObject made once: on Node 24 an HMAC keyed by a raw Buffer costs five times more. */
  readonly secret: KeyObject;
  readonly keyId: string;
}

export function keyOf(key: Uint8Array | string, keyId: string | undefined): BrokerKey | string {
  const bytes = typeof key === "string" ? Buffer.from(key, "utf8") : Buffer.from(key);
  if (bytes.length < MIN_KEY_BYTES) return `key must hold at least ${MIN_KEY_BYTES} bytes (HMAC-SHA256)`;
  if (keyId !== undefined && (typeof keyId !== "string" || !/^[0-9A-Za-z_-]{1,64}$/.test(keyId))) return "keyId must be 1–64 characters of [0-9A-Za-z_-]";
  // The default id is a fingerprint of the key: two brokers with one key accept each other's tokens.
  const fingerprint = createHash("sha256").update("yoke.capability.key-id.").update(bytes).digest("hex").slice(0, 16);
  return { secret: createSecretKey(bytes), keyId: keyId ?? fingerprint };
}

export const MIN_KEY_BYTES = 32;

export function encodeToken(key: BrokerKey, payload: TokenPayload, parsed?: ParsedBodies): string {
  const body = Buffer.from(canonicalPayload(payload), "utf8").toString("base64url");
  const tag = mac(key, TOKEN_DOMAIN, body).toString("base64url");
  parsed?.set(tag, payload);
  return `${PREFIX}.${body}.${tag}`;
}

/**
 * The token's payload when its mac is this key's; undefined for anything else (malformed,
 * forged, another key). The mac is checked (in constant time) on every call; `parsed` only
 * spares re-parsing a body whose mac has just been checked (keyed by that mac).
 */
export function decodeToken(key: BrokerKey, token: unknown, parsed?: ParsedBodies): TokenPayload | undefined {
  if (typeof token !== "string" || token.length > 16_384) return undefined;
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== PREFIX) return undefined;
  const [, body, given] = parts as [string, string, string];
  if (!isBase64Url(body) || !isBase64Url(given)) return undefined;
  const presented = Buffer.from(given, "base64url");
  // The canonical encoding only: a token re-encoded with other padding bits is not the token minted.
  if (presented.length !== MAC_BYTES || presented.toString("base64url") !== given) return undefined;
  if (!timingSafeEqual(presented, mac(key, TOKEN_DOMAIN, body))) return undefined;
  // After the check, the mac names the body: a shorter key than the body itself.
  const known = parsed?.get(given);
  if (known !== undefined) return known;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  const payload = PayloadSchema.safeParse(json);
  if (!payload.success || payload.data.keyId !== key.keyId) return undefined;
  parsed?.set(given, payload.data);
  return payload.data;
}

/**
 * Payloads of tokens whose mac checked, by mac: two generations of at most `limit` each (a
 * full current generation becomes the previous one, and the previous one is dropped), so
 * both lookup and eviction are O(1).
 */
export class ParsedBodies {
  #current = new Map<string, TokenPayload>();
  #previous = new Map<string, TokenPayload>();
  constructor(readonly limit = 4_096) {}
  get(tag: string): TokenPayload | undefined {
    return this.#current.get(tag) ?? this.#previous.get(tag);
  }
  set(tag: string, payload: TokenPayload): void {
    // Shared with every caller that verifies the token: frozen, so nobody edits the cache.
    Object.freeze(payload.scope.verbs);
    Object.freeze(payload.scope);
    Object.freeze(payload.lineage);
    Object.freeze(payload);
    if (this.#current.size >= this.limit) {
      this.#previous = this.#current;
      this.#current = new Map();
    }
    this.#current.set(tag, payload);
  }
}

/**
 * The payload's one serialization: keys in a fixed (sorted) order, the same bytes
 * `canonicalJson` writes for it, without its general-purpose walk (this is the hot path).
 */
function canonicalPayload(payload: TokenPayload): string {
  const { scope } = payload;
  return `{"id":${JSON.stringify(payload.id)},"keyId":${JSON.stringify(payload.keyId)},"lineage":${JSON.stringify(payload.lineage)},"parentId":${JSON.stringify(payload.parentId)},"scope":{"actionId":${JSON.stringify(scope.actionId)},"expiresAt":${JSON.stringify(scope.expiresAt)},"resource":${JSON.stringify(scope.resource)},"tenantId":${JSON.stringify(scope.tenantId)},"verbs":${JSON.stringify(scope.verbs)}}}`;
}

/** The receipt fields a mac covers, with the key id, as one JSON array in a fixed order. */
export function receiptMac(key: BrokerKey, fields: ReceiptFields): string {
  const message = JSON.stringify([fields.capabilityId, fields.tenantId, fields.actionId, fields.verb, fields.resource, fields.at, key.keyId]);
  return mac(key, RECEIPT_DOMAIN, message).toString("base64url");
}

export interface ReceiptFields {
  readonly capabilityId: string;
  readonly tenantId: string;
  readonly actionId: string | null;
  readonly verb: string;
  readonly resource: string;
  readonly at: number;
}

export function macEquals(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return left.length === right.length && timingSafeEqual(left, right);
}

export function sameScope(a: CapabilityScope, b: CapabilityScope | undefined): boolean {
  if (typeof b !== "object" || b === null || !Array.isArray(b.verbs)) return false;
  return (
    a.tenantId === b.tenantId &&
    a.resource === b.resource &&
    a.actionId === b.actionId &&
    a.expiresAt === b.expiresAt &&
    a.verbs.length === b.verbs.length &&
    a.verbs.every((verb, index) => verb === b.verbs[index]) &&
    Object.keys(b).length === 5
  );
}

function mac(key: BrokerKey, domain: string, body: string): Buffer {
  return createHmac("sha256", key.secret).update(domain).update(body).digest();
}

function isBase64Url(value: string): boolean {
  return value.length > 0 && /^[A-Za-z0-9_-]+$/.test(value);
}
