import type { ToolFilter, ToolRevisionRecord } from "@yoke/protocol";
import { sha256OfJson } from "./digests.js";

/**
 * Whether a revision passes a filter: every present field must match (AND across fields),
 * and a field matches when any of its values does (OR within). An empty list matches nothing.
 *
 * @example
 * ```ts
 * matchesFilter(revision, { capabilities: ["fs.read", "fs.write"], owners: ["files-team"] }); // fs.* AND owned by files-team
 * ```
 */
export function matchesFilter(record: ToolRevisionRecord, filter: ToolFilter | undefined): boolean {
  if (filter === undefined) return true;
  if (filter.capabilities !== undefined && !filter.capabilities.some((capability) => record.capabilities.includes(capability))) return false;
  if (filter.owners !== undefined && (record.contract.owner === null || !filter.owners.includes(record.contract.owner))) return false;
  if (filter.trustDomains !== undefined && !filter.trustDomains.includes(record.trustDomain)) return false;
  if (filter.sideEffects !== undefined && !filter.sideEffects.includes(record.contract.sideEffect)) return false;
  if (filter.names !== undefined && !filter.names.includes(record.name)) return false;
  return true;
}

/**
 * The digest of a set of revisions (a snapshot, or the tools offered to a turn): SHA-256 over
 * the canonical JSON of its `[name, digest]` pairs, sorted by name.
 *
 * @example
 * ```ts
 * setDigestOf(snapshot.revisions) === snapshot.digest; // true
 * ```
 */
export function setDigestOf(records: readonly ToolRevisionRecord[]): string {
  return sha256OfJson(sortByName(records).map((record) => [record.name, record.digest]));
}

export function sortByName<T extends { readonly name: string }>(records: readonly T[]): T[] {
  return [...records].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
