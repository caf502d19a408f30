import { z } from "zod/v4";

/**
 * Capabilities: what a tool holds instead of a secret. A broker mints a short-lived
 * capability scoped to tenant, resource, verbs, action and expiry; attenuation only
 * narrows; revoking a parent revokes every descendant. `token` is the bearer secret and is
 * never journaled or logged; everything else is data.
 */
export const CapabilityScopeSchema = z.object({
  tenantId: z.string().min(1),
  /** A resource name or a prefix ending in `*` (`account:42`, `file:/reports/*`). */
  resource: z.string().min(1),
  verbs: z.array(z.string().min(1)).min(1),
  /** The action the capability was minted for; null only for a root a broker holds. */
  actionId: z.string().nullable(),
  expiresAt: z.number().int(),
});
export type CapabilityScope = z.infer<typeof CapabilityScopeSchema>;

/** A minted capability: its id, parent, scope and the bearer token (a secret). */
export interface Capability {
  readonly id: string;
  readonly parentId: string | null;
  readonly scope: CapabilityScope;
  readonly token: string;
}

/** What one use of a capability proves, without the capability: what a result carries. */
export const CapabilityReceiptSchema = z.object({
  capabilityId: z.string(),
  tenantId: z.string(),
  actionId: z.string().nullable(),
  verb: z.string(),
  resource: z.string(),
  at: z.number().int(),
  /** An HMAC over the other fields, keyed by the broker: a receipt cannot be forged. */
  mac: z.string(),
});
export type CapabilityReceipt = z.infer<typeof CapabilityReceiptSchema>;

/** A use to check a token against. */
export interface CapabilityUse {
  readonly tenantId: string;
  readonly resource: string;
  readonly verb: string;
  readonly actionId: string | null;
}

export type CapabilityVerification =
  | { readonly ok: true; readonly capability: Omit<Capability, "token">; readonly receipt: CapabilityReceipt }
  | {
      readonly ok: false;
      readonly code:
        | "CAPABILITY_INVALID"
        | "CAPABILITY_EXPIRED"
        | "CAPABILITY_REVOKED"
        | "CAPABILITY_SCOPE"
        | "CAPABILITY_RESOURCE_INVALID"
        | "TENANT_MISMATCH";
      readonly reason: string;
    };

/**
 * A capability broker, version 1. `attenuate` returns a child whose scope is within the
 * parent's (CAPABILITY_ESCALATION otherwise); `verify` checks a token for one use now and
 * returns a receipt; `revoke` revokes the capability and all its descendants.
 */
export interface CapabilityBrokerV1 {
  readonly specificationVersion: "v1";
  mint(scope: CapabilityScope): Capability;
  attenuate(parent: Capability, narrower: Partial<CapabilityScope>): Capability;
  verify(token: string, use: CapabilityUse): CapabilityVerification;
  revoke(capabilityId: string): void;
}
