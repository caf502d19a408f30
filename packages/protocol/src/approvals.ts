import { z } from "zod/v4";

const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * What an approval is bound to. Any change voids it: the action digest (SHA-256 of the
 * canonical `{ toolRevision, arguments }`, so a new transient tool-call id with the same
 * content keeps it), the tool revision, the resource's base revision (null when the tool
 * names none), the policy revision, tenant, principal, and the expiry (epoch ms, from the
 * injected clock).
 */
export const ApprovalBindingSchema = z.object({
  actionDigest: Sha256Schema,
  toolRevision: Sha256Schema,
  resourceRevision: z.string().nullable(),
  policyRevision: Sha256Schema,
  tenantId: z.string().min(1),
  principalId: z.string().min(1),
  expiresAt: z.number().int(),
});
export type ApprovalBinding = z.infer<typeof ApprovalBindingSchema>;

/** The fields of a binding, in the order a mismatch is reported. */
export const APPROVAL_BINDING_FIELDS = [
  "actionDigest",
  "toolRevision",
  "resourceRevision",
  "policyRevision",
  "tenantId",
  "principalId",
  "expiresAt",
] as const satisfies readonly (keyof ApprovalBinding)[];
export type ApprovalBindingField = (typeof APPROVAL_BINDING_FIELDS)[number];

/** Why an approval no longer holds at dispatch. */
export type ApprovalCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: "APPROVAL_EXPIRED" | "APPROVAL_INVALID"; readonly fields: readonly ApprovalBindingField[]; readonly reason: string };

/**
 * Checks an approval's binding against the action as it stands immediately before dispatch.
 * `current` is the binding recomputed now (with the approval's own expiry, which is not
 * recomputed); `now` is the injected clock's time. Expired when `now >= expiresAt`; invalid
 * when any other field differs (every differing field is named).
 *
 * @example
 * ```ts
 * const check = checkApprovalBinding(granted, { ...granted, policyRevision: next }, clock.now());
 * check; // { ok: false, code: "APPROVAL_INVALID", fields: ["policyRevision"], reason: "…" }
 * ```
 */
export function checkApprovalBinding(approved: ApprovalBinding, current: ApprovalBinding, now: number): ApprovalCheck {
  const fields = APPROVAL_BINDING_FIELDS.filter((field) => field !== "expiresAt" && approved[field] !== current[field]);
  if (approved.expiresAt !== current.expiresAt) fields.push("expiresAt");
  if (fields.length > 0) {
    return { ok: false, code: "APPROVAL_INVALID", fields, reason: `the approval no longer matches the action: ${fields.join(", ")} changed` };
  }
  if (now >= approved.expiresAt) {
    return { ok: false, code: "APPROVAL_EXPIRED", fields: ["expiresAt"], reason: `the approval expired at ${approved.expiresAt}` };
  }
  return { ok: true };
}

/** A decision on a parked action, as journaled (`approval.granted` / `approval.denied` / `approval.voided`). */
export interface ApprovalRecord {
  readonly approvalId: string;
  readonly actionId: string;
  readonly status: "requested" | "granted" | "denied" | "voided";
  /** The binding the request was made for (`expiresAt` is the request's own deadline), then the granted one. */
  readonly binding: ApprovalBinding;
  /**
   * The request's own deadline, kept after a grant replaces `binding`: a decision journaled at
   * or after it (`decidedAt`) decides nothing, whatever expiry the grant names.
   */
  readonly requestExpiresAt: number;
  /** When the request was granted, denied or voided (the decision event's `at`). */
  readonly decidedAt?: number;
  /** With status `voided`: why (`approval.voided`'s code). */
  readonly code?: "APPROVAL_EXPIRED" | "APPROVAL_INVALID";
  readonly approver?: string;
  readonly reason?: string;
}
