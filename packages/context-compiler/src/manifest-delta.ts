import { YokeError } from "@yoke/protocol";
import { MANIFEST_VERSION, type Manifest, type ManifestDelta, type ManifestItem } from "./manifest-schema.js";

const FIELDS = [
  "version",
  "revision",
  "contextRevision",
  "model",
  "tokenizer",
  "configDigest",
  "delimiterNonce",
  "header",
  "tools",
  "allocation",
  "stablePrefix",
  "messageCount",
  "requestBytes",
  "requestHash",
] as const satisfies readonly (keyof Manifest)[];

/** Equal as JSON values (what canonical JSON would say, without serializing either). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!same(a[index], b[index])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let members = 0;
  for (const key in left) {
    if (!Object.hasOwn(left, key) || left[key] === undefined) continue;
    members++;
    if (!Object.hasOwn(right, key) || !same(left[key], right[key])) return false;
  }
  for (const key in right) if (Object.hasOwn(right, key) && right[key] !== undefined) members--;
  return members === 0;
}

function sameItem(a: ManifestItem, b: ManifestItem): boolean {
  // Compilers reuse item objects across turns, so identity settles almost every comparison.
  return a === b || same(a, b);
}

/**
 * The delta that turns `previous` into `next` (`previous` undefined: a first manifest,
 * carried whole). Items are diffed as a kept prefix plus an appended tail, which is how a
 * transcript grows; a compaction shows up as a shorter prefix.
 *
 * @example
 * ```ts
 * const delta = diffManifest(turn1.manifest, turn2.manifest);
 * applyManifestDelta(turn1.manifest, delta); // deep-equals turn2.manifest
 * ```
 */
export function diffManifest(previous: Manifest | undefined, next: Manifest): ManifestDelta {
  if (previous === undefined) {
    const { items, ...rest } = next;
    return { version: MANIFEST_VERSION, base: null, keep: 0, append: items.slice(), set: rest };
  }
  let keep = 0;
  const limit = Math.min(previous.items.length, next.items.length);
  while (keep < limit && sameItem(previous.items[keep]!, next.items[keep]!)) keep++;
  const set: Record<string, unknown> = {};
  for (const field of FIELDS) {
    if (!same(previous[field], next[field])) set[field] = next[field];
  }
  return {
    version: MANIFEST_VERSION,
    base: previous.requestHash,
    keep,
    append: next.items.slice(keep),
    set: set as ManifestDelta["set"],
  };
}

/**
 * Applies a delta to the manifest it was made against. Throws JOURNAL_CORRUPT when the
 * delta names another base, or when the result is not a whole manifest.
 *
 * @example
 * ```ts
 * let manifest: Manifest | undefined;
 * for (const delta of deltas) manifest = applyManifestDelta(manifest, delta);
 * ```
 */
export function applyManifestDelta(previous: Manifest | undefined, delta: ManifestDelta): Manifest {
  const base = previous?.requestHash ?? null;
  if (delta.base !== base) {
    throw new YokeError("JOURNAL_CORRUPT", `manifest delta applies to ${delta.base ?? "no manifest"}, not to ${base ?? "no manifest"}`, {
      details: { expected: delta.base, actual: base },
    });
  }
  const items = previous === undefined ? [] : previous.items.slice(0, delta.keep);
  if (items.length !== delta.keep) {
    throw new YokeError("JOURNAL_CORRUPT", `manifest delta keeps ${delta.keep} items of ${items.length}`, { details: { keep: delta.keep } });
  }
  for (const item of delta.append) items.push(item);
  const merged = { ...(previous ?? {}), ...delta.set, items } as Partial<Manifest>;
  for (const field of FIELDS) {
    if (merged[field] === undefined) {
      throw new YokeError("JOURNAL_CORRUPT", `manifest delta leaves field ${field} unset`, { details: { field } });
    }
  }
  return merged as Manifest;
}
