import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { CapabilityScopeSchema, canonicalJson, type CapabilityScope } from "@yoke/protocol";
import { z } from "zod";

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
  readonly bytes: Buffer;
  readonly keyId: string;
}

export function keyOf(key: Uint8Array | string, keyId: string | undefined): BrokerKey | string {
  const bytes = typeof key === "string" ? Buffer.from(key, "utf8") : Buffer.from(key);
  if (bytes.length < MIN_KEY_BYTES) return `key must hold at least ${MIN_KEY_BYTES} bytes (HMAC-SHA256)`;
  if (keyId !== undefined && (typeof keyId !== "string" || !/^[0-9A-Za-z_-]{1,64}$/.test(keyId))) return "keyId must be 1–64 characters of [0-9A-Za-z_-]";
  // The default id is a fingerprint of the key: two brokers with one key accept each other's tokens.
  const fingerprint = createHash("sha256").update("yoke.capability.key-id.").update(bytes).digest("hex").slice(0, 16);
  return { bytes, keyId: keyId ?? fingerprint };
}

export const MIN_KEY_BYTES = 32;

export function encodeToken(key: BrokerKey, payload: TokenPayload, parsed?: ParsedBodies): string {
  const body = Buffer.from(canonicalJson(payload), "utf8").toString("base64url");
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

/** Payloads of tokens whose mac checked, by mac: bounded, oldest out first. */
export class ParsedBodies {
  readonly #entries = new Map<string, TokenPayload>();
  constructor(readonly limit = 4_096) {}
  get(tag: string): TokenPayload | undefined {
    return this.#entries.get(tag);
  }
  set(tag: string, payload: TokenPayload): void {
    // Shared with every caller that verifies the token: frozen, so nobody edits the cache.
    Object.freeze(payload.scope.verbs);
    Object.freeze(payload.scope);
    Object.freeze(payload.lineage);
    Object.freeze(payload);
    if (this.#entries.size >= this.limit) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(tag, payload);
  }
}

/** The receipt fields a mac covers, in a fixed form. */
export function receiptMac(key: BrokerKey, fields: Record<string, unknown>): string {
  return mac(key, RECEIPT_DOMAIN, canonicalJson({ ...fields, keyId: key.keyId })).toString("base64url");
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
  return createHmac("sha256", key.bytes).update(domain).update(body).digest();
}

function isBase64Url(value: string): boolean {
  return value.length > 0 && /^[A-Za-z0-9_-]+$/.test(value);
}
