import type { RunScope } from "@yoke/protocol";

/** No run can have a lone surrogate in its ids: a store keeps text as UTF-8 (SQLite, PostgreSQL), which cannot hold one. */
export const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Whether a run of these ids can be stored: both strings, neither holding a lone surrogate. */
export function storable(scope: RunScope): boolean {
  return typeof scope.tenantId === "string" && typeof scope.runId === "string" && !LONE_SURROGATE.test(scope.tenantId) && !LONE_SURROGATE.test(scope.runId);
}
