import { createHash } from "node:crypto";
import { canonicalJson } from "@yoke/protocol";

/** SHA-256 of a value's canonical JSON, lowercase hex. */
export function sha256OfJson(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

/**
 * The digest an approval binds: SHA-256 (lowercase hex) of the canonical JSON of
 * `{ toolRevision, arguments }`. The same tool revision with the same arguments gives the same
 * digest whatever the key order of the arguments or the call id; any change to either gives
 * another.
 *
 * @example
 * ```ts
 * import { actionDigestOf } from "@yoke/policy";
 *
 * const digest = actionDigestOf(revision.digest, { to: "alice@example.com", amount: 10 });
 * actionDigestOf(revision.digest, { amount: 10, to: "alice@example.com" }) === digest; // true
 * ```
 */
export function actionDigestOf(toolRevision: string, args: unknown): string {
  return sha256OfJson({ toolRevision, arguments: args });
}
