import {
  CapabilityReceiptSchema,
  CapabilityScopeSchema,
  YokeError,
  newId,
  type Capability,
  type CapabilityBrokerV1,
  type CapabilityReceipt,
  type CapabilityScope,
  type CapabilityVerification,
  type Clock,
  type IdSource,
} from "@yoke/protocol";
import { canonicalResource, canonicalResourcePattern } from "../canonical/resource.js";
import { uncovered, widening } from "./scope.js";
import { ParsedBodies, decodeToken, encodeToken, keyOf, macEquals, receiptMac, sameScope, type TokenPayload } from "./token.js";

export interface CapabilityBrokerOptions {
  /** The HMAC-SHA256 key (at least 32 bytes; a string is taken as UTF-8). Keep it out of every tool's reach. */
  readonly key: Uint8Array | string;
  /** Where expiry and receipt times are read. */
  readonly clock: Clock;
  /** Where capability ids come from (`capability_<body>`). */
  readonly ids: IdSource;
  /** Named in every token and receipt; defaults to a fingerprint of the key. */
  readonly keyId?: string;
}

/** A broker: the V1 interface, plus a check of the receipts it signed. */
export interface CapabilityBroker extends CapabilityBrokerV1 {
  readonly keyId: string;
  /** True when this broker's key signed `receipt` and none of its fields changed since. */
  verifyReceipt(receipt: CapabilityReceipt): boolean;
}

/**
 * Creates a capability broker whose tokens are HMAC-SHA256 under `key` (node:crypto), over
 * the canonical scope, id, parent and lineage. `attenuate` only narrows (CAPABILITY_ESCALATION
 * otherwise); `revoke` revokes a capability and every descendant, including ones minted from
 * it later (refused with CAPABILITY_REVOKED); `verify` never throws: it returns a typed
 * failure or a receipt whose `mac` covers its fields. Time comes from `clock` only.
 * Revocations are held in memory: a broker restarted with the same key honours tokens a
 * revoked one did not expire, so keep capabilities short-lived.
 *
 * @example
 * ```ts
 * import { createCapabilityBroker } from "@yoke/policy/capabilities";
 *
 * const broker = createCapabilityBroker({ key: process.env.CAPABILITY_KEY!, clock, ids });
 * const root = broker.mint({ tenantId: "acme", resource: "file:/reports/*", verbs: ["read", "write"], actionId: null, expiresAt: clock.now() + 60_000 });
 * const child = broker.attenuate(root, { resource: "file:/reports/q3.pdf", verbs: ["read"], actionId: "action_1" });
 * const check = broker.verify(child.token, { tenantId: "acme", resource: "file:/reports/q3.pdf", verb: "read", actionId: "action_1" });
 * if (check.ok) broker.verifyReceipt(check.receipt); // true
 * broker.revoke(root.id); // child is revoked with it
 * ```
 */
export function createCapabilityBroker(options: CapabilityBrokerOptions): CapabilityBroker {
  const key = keyOf(options?.key ?? "", options?.keyId);
  if (typeof key === "string") throw new YokeError("CONFIG_INVALID", `createCapabilityBroker: ${key}`, { details: { option: "key" } });
  if (options.clock?.specificationVersion !== "v1")
    throw new YokeError("CONFIG_INVALID", "createCapabilityBroker: clock must implement Clock", { details: { option: "clock" } });
  if (options.ids?.specificationVersion !== "v1")
    throw new YokeError("CONFIG_INVALID", "createCapabilityBroker: ids must implement IdSource", { details: { option: "ids" } });
  const { clock, ids } = options;
  const revoked = new Set<string>();
  const parsed = new ParsedBodies();

  const issue = (scope: CapabilityScope, parent: TokenPayload | undefined): Capability => {
    const id = newId(ids, "capability");
    const payload: TokenPayload = {
      id,
      parentId: parent?.id ?? null,
      lineage: parent === undefined ? [] : [...parent.lineage, parent.id],
      scope: { ...scope, verbs: [...scope.verbs] },
      keyId: key.keyId,
    };
    const token = encodeToken(key, payload, parsed);
    return Object.freeze({ id, parentId: payload.parentId, scope: payload.scope, token });
  };

  const revokedIn = (payload: TokenPayload): string | undefined => [payload.id, ...payload.lineage].find((id) => revoked.has(id));

  return {
    specificationVersion: "v1",
    keyId: key.keyId,

    mint(scope) {
      const parsed = parseScope(scope, "mint");
      return issue({ ...parsed, resource: canonicalPatternOrThrow(parsed.resource, "mint") }, undefined);
    },

    attenuate(parent, narrower) {
      const payload = decodeToken(key, parent?.token, parsed);
      if (payload === undefined) throw new YokeError("CAPABILITY_INVALID", "attenuate: the parent's token is malformed, forged or from another key");
      // The token is the authority: a parent object whose fields were edited is not the capability minted.
      if (payload.id !== parent.id || payload.parentId !== parent.parentId || !sameScope(payload.scope, parent.scope)) {
        throw new YokeError("CAPABILITY_INVALID", "attenuate: the parent's fields do not match its token", { details: { capabilityId: payload.id } });
      }
      const gone = revokedIn(payload);
      if (gone !== undefined) {
        throw new YokeError("CAPABILITY_REVOKED", `attenuate: capability ${gone} was revoked`, { details: { capabilityId: payload.id, revokedId: gone } });
      }
      if (clock.now() >= payload.scope.expiresAt) {
        throw new YokeError("CAPABILITY_EXPIRED", "attenuate: the parent has expired", { details: { capabilityId: payload.id } });
      }
      const request = parseNarrower(narrower);
      const resource = request.resource === undefined ? undefined : canonicalPatternOrThrow(request.resource, "attenuate");
      // Every field is either the request's (validated above) or the parent's (validated when its token was read).
      const child: CapabilityScope = {
        tenantId: request.tenantId ?? payload.scope.tenantId,
        resource: resource ?? payload.scope.resource,
        verbs: request.verbs === undefined ? [...payload.scope.verbs] : [...new Set(request.verbs)],
        actionId: request.actionId === undefined ? payload.scope.actionId : request.actionId,
        expiresAt: request.expiresAt ?? payload.scope.expiresAt,
      };
      const why = widening(child, payload.scope);
      if (why !== undefined) {
        throw new YokeError("CAPABILITY_ESCALATION", `attenuate: ${why}`, { details: { capabilityId: payload.id } });
      }
      return issue(child, payload);
    },

    verify(token, use) {
      const payload = decodeToken(key, token, parsed);
      if (payload === undefined) return failure("CAPABILITY_INVALID", "the token is malformed, forged or from another key");
      const { scope } = payload;
      if (use?.tenantId !== scope.tenantId) return failure("TENANT_MISMATCH", "the capability belongs to another tenant");
      const gone = revokedIn(payload);
      if (gone !== undefined)
        return failure("CAPABILITY_REVOKED", gone === payload.id ? "the capability was revoked" : "an ancestor of the capability was revoked");
      const at = clock.now();
      if (at >= scope.expiresAt) return failure("CAPABILITY_EXPIRED", "the capability has expired");
      if (typeof use.resource !== "string" || typeof use.verb !== "string" || (use.actionId !== null && typeof use.actionId !== "string")) {
        return failure("CAPABILITY_SCOPE", "the use names no resource, verb or action");
      }
      const canonical = canonicalResource(use.resource);
      if (!canonical.ok) return failure("CAPABILITY_RESOURCE_INVALID", `resource ${JSON.stringify(use.resource)}: ${canonical.reason}`);
      const gap = uncovered(scope, { ...use, resource: canonical.value });
      if (gap !== undefined) return failure("CAPABILITY_SCOPE", gap);
      const fields = { capabilityId: payload.id, tenantId: scope.tenantId, actionId: use.actionId, verb: use.verb, resource: use.resource, at };
      const receipt: CapabilityReceipt = { ...fields, mac: receiptMac(key, fields) };
      return { ok: true, capability: { id: payload.id, parentId: payload.parentId, scope }, receipt };
    },

    revoke(capabilityId) {
      if (typeof capabilityId !== "string" || capabilityId === "") throw new YokeError("CONFIG_INVALID", "revoke: capabilityId must be a non-empty string");
      revoked.add(capabilityId);
    },

    verifyReceipt(receipt) {
      const parsed = ReceiptSchema.safeParse(receipt);
      if (!parsed.success) return false;
      const { mac, ...fields } = parsed.data;
      return macEquals(mac, receiptMac(key, fields));
    },
  };
}

/** The canonical form of a scope's resource pattern; CAPABILITY_RESOURCE_INVALID when it has none. */
function canonicalPatternOrThrow(resource: string, operation: string): string {
  const canonical = canonicalResourcePattern(resource);
  if (!canonical.ok) {
    throw new YokeError("CAPABILITY_RESOURCE_INVALID", `${operation}: resource ${JSON.stringify(resource)}: ${canonical.reason}`, { details: { resource } });
  }
  return canonical.value;
}

function failure(code: Extract<CapabilityVerification, { ok: false }>["code"], reason: string): CapabilityVerification {
  return { ok: false, code, reason };
}

const ScopeSchema = CapabilityScopeSchema.strict();
const ReceiptSchema = CapabilityReceiptSchema.strict();

function parseScope(scope: unknown, operation: string): CapabilityScope {
  const parsed = ScopeSchema.safeParse(scope);
  if (!parsed.success) {
    throw new YokeError(
      "CONFIG_INVALID",
      `${operation}: not a capability scope: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`,
    );
  }
  return parsed.data;
}

const NarrowerSchema = CapabilityScopeSchema.partial().strict();

function parseNarrower(narrower: unknown): { readonly [K in keyof CapabilityScope]?: CapabilityScope[K] | undefined } {
  const parsed = NarrowerSchema.safeParse(narrower ?? {});
  if (!parsed.success) {
    throw new YokeError(
      "CONFIG_INVALID",
      `attenuate: not a narrower scope: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`,
    );
  }
  return parsed.data;
}
