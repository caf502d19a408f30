import type { CapabilityScope } from "@yoke/protocol";
import { canonicalResource, canonicalResourcePattern } from "../canonical/resource.js";

/**
 * Resource patterns: a trailing `*` makes the rest a prefix (`file:/reports/*` covers
 * `file:/reports/q3.pdf` and `file:/reports/2026/*`); anything else names exactly one
 * resource. A `*` anywhere but the end is an ordinary character. Both sides are compared in
 * their canonical form (`canonical/resource.ts`): `file:/reports/../secrets` is not under
 * `file:/reports/*`, and a name without a canonical form is covered by nothing.
 */
export function resourceCovers(pattern: string, resource: string): boolean {
  const canonicalPattern = canonicalResourcePattern(pattern);
  const canonical = canonicalResource(resource);
  if (!canonicalPattern.ok || !canonical.ok) return false;
  if (canonicalPattern.value.endsWith("*")) return canonical.value.startsWith(canonicalPattern.value.slice(0, -1));
  return canonicalPattern.value === canonical.value;
}

/**
 * Whether every resource `inner` names is one `outer` names: equal patterns, or `outer` a
 * prefix pattern whose prefix starts `inner` (an exact resource or a longer prefix), both
 * canonical; a pattern without a canonical form is within nothing.
 */
export function resourceWithin(innerPattern: string, outerPattern: string): boolean {
  const canonicalInner = canonicalResourcePattern(innerPattern);
  const canonicalOuter = canonicalResourcePattern(outerPattern);
  if (!canonicalInner.ok || !canonicalOuter.ok) return false;
  const inner = canonicalInner.value;
  const outer = canonicalOuter.value;
  if (inner === outer) return true;
  if (!outer.endsWith("*")) return false;
  const base = inner.endsWith("*") ? inner.slice(0, -1) : inner;
  return base.startsWith(outer.slice(0, -1));
}

/**
 * Why `child` is not within `parent`, or undefined when it is: same tenant, resource within,
 * verbs a subset, expiry no later, and the action, once set, kept.
 */
export function widening(child: CapabilityScope, parent: CapabilityScope): string | undefined {
  if (child.tenantId !== parent.tenantId) return `tenant ${JSON.stringify(child.tenantId)} is not the parent's`;
  if (!resourceWithin(child.resource, parent.resource)) {
    return `resource ${JSON.stringify(child.resource)} is not within the parent's ${JSON.stringify(parent.resource)}`;
  }
  const extra = child.verbs.filter((verb) => !parent.verbs.includes(verb));
  if (extra.length > 0) return `verbs ${JSON.stringify(extra)} are not the parent's`;
  if (child.expiresAt > parent.expiresAt) return `expiry ${child.expiresAt} is later than the parent's ${parent.expiresAt}`;
  if (parent.actionId !== null && child.actionId !== parent.actionId) return `the parent is bound to action ${parent.actionId}`;
  return undefined;
}

/** Why `scope` does not cover `use` (tenant aside), or undefined when it does. */
export function uncovered(scope: CapabilityScope, use: { resource: string; verb: string; actionId: string | null }): string | undefined {
  if (!resourceCovers(scope.resource, use.resource)) return `resource ${JSON.stringify(use.resource)} is not covered`;
  if (!scope.verbs.includes(use.verb)) return `verb ${JSON.stringify(use.verb)} is not granted`;
  if (scope.actionId !== null && use.actionId !== scope.actionId) return `the capability is bound to another action`;
  return undefined;
}
