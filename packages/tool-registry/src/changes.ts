import { canonicalJson, type JsonValue, type ToolChange, type ToolRevisionRecord } from "@yoke/protocol";
import { normalizeCapabilities, schemaForDigest, sha256OfJson } from "./digests.js";

const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);
const sameSchema = (a: JsonValue | undefined, b: JsonValue | undefined) =>
  same(a === undefined ? null : schemaForDigest(a), b === undefined ? null : schemaForDigest(b));

/**
 * How `offered` differs from `pinned`, two revisions of one name, in a fixed order. A change
 * of trust domain counts as `origin` (who vouches for the code is part of where it comes
 * from), a change of capability classes as `contract` (both are declared by the registering
 * code, not the source); `strict` counts as `input_schema`. Empty when the revisions are equal.
 *
 * @example
 * ```ts
 * changesBetween(pinned, registry.live("search")!); // ["description", "hints"]
 * ```
 */
export function changesBetween(pinned: ToolRevisionRecord, offered: ToolRevisionRecord): ToolChange[] {
  const changes: ToolChange[] = [];
  if (pinned.spec.description !== offered.spec.description) changes.push("description");
  if (!sameSchema(pinned.spec.inputSchema, offered.spec.inputSchema) || pinned.spec.strict !== offered.spec.strict) changes.push("input_schema");
  if (!sameSchema(pinned.outputSchema, offered.outputSchema)) changes.push("output_schema");
  if (pinned.contractDigest !== offered.contractDigest || !same(normalizeCapabilities(pinned.capabilities), normalizeCapabilities(offered.capabilities))) {
    changes.push("contract");
  }
  if (!same(pinned.origin, offered.origin) || pinned.trustDomain !== offered.trustDomain) changes.push("origin");
  if (!same(pinned.hints, offered.hints)) changes.push("hints");
  return changes;
}

/**
 * The SHA-256 of everything in a revision but its name: two revisions with equal bodies and
 * different names are a rename.
 */
export function bodyDigestOf(record: ToolRevisionRecord): string {
  return sha256OfJson({
    description: record.spec.description,
    inputSchema: schemaForDigest(record.spec.inputSchema),
    strict: record.spec.strict ?? null,
    outputSchema: record.outputSchema === undefined ? null : schemaForDigest(record.outputSchema),
    contractDigest: record.contractDigest,
    origin: record.origin,
    trustDomain: record.trustDomain,
    capabilities: normalizeCapabilities(record.capabilities),
    hints: record.hints ?? null,
  });
}
