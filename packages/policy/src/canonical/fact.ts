import { canonicalResource, canonicalResourcePattern } from "./resource.js";
import { hasControlCharacter, isMixedScript, normalizedText, skeletonOf } from "./text.js";

/**
 * A string fact of a tuple as rules see it.
 * - `canonical`: what the value means (see `canonicalFact`), or undefined when that cannot be
 *   decided (a path above its root, a control character, an IBAN with letters outside A–Z):
 *   such a value fails every granting rule that constrains its field;
 * - `mixedScript`: a word of it mixes scripts (`pаypal`): fails granting rules the same way;
 * - `skeleton`: what it looks like, for deny rules (`skeletonOf`).
 */
export interface CanonicalFact {
  readonly raw: string;
  readonly canonical: string | undefined;
  readonly mixedScript: boolean;
  readonly skeleton: string;
}

/** Fields whose values name a resource: their paths and URLs are resolved as well. */
export type FactKind = "plain" | "resource";

/**
 * The canonical form of a value: NFKC, default-ignorable code points removed, white space
 * trimmed, then by the field type its scheme names (case-insensitively):
 * - `iban:` — white space removed, upper case (the printed `FR76 3000 …` is `FR763000…`);
 * - `email:` — the domain (after the last `@`) in lower case without trailing dots; the
 *   local part is kept as written;
 * - `host:`, `domain:` — lower case, without trailing dots;
 * - in a resource field (`resource`, `path`, `destination`): paths and URLs as
 *   `canonicalResource` resolves them (dot segments, percent-escapes, URL hosts).
 * Every other value keeps its case: tool names, verbs, ids and channel names are
 * case-sensitive.
 *
 * @example
 * ```ts
 * canonicalFact(" ｉｂａｎ:fr76\u200b3000", "resource").canonical; // "iban:FR763000"
 * ```
 */
export function canonicalFact(raw: string, kind: FactKind): CanonicalFact {
  const text = normalizedText(raw).trim();
  const mixedScript = isMixedScript(text);
  let canonical: string | undefined = hasControlCharacter(text) ? undefined : foldParts([text], true)?.[0];
  if (canonical !== undefined && kind === "resource") {
    const resolved = canonicalResource(canonical);
    canonical = resolved.ok ? resolved.value : undefined;
  }
  let skeleton: string | undefined;
  // Only deny rules look at the skeleton: computed on first use.
  return {
    raw,
    canonical,
    mixedScript,
    get skeleton() {
      skeleton ??= skeletonOf(text);
      return skeleton;
    },
  };
}

/**
 * A glob's literal parts (the text between its stars) in canonical form: each part
 * normalized, the pattern trimmed at both ends, and folded by the field type its scheme
 * names, as `canonicalFact` folds values. In a resource field, a pattern without a star or
 * with one star at its end is resolved as `canonicalResource` resolves values (a prefix keeps
 * its unfinished last segment); stars elsewhere leave the path as written, so write such
 * patterns in canonical form (decoded, without dot segments).
 */
export function canonicalPatternParts(parts: readonly string[], kind: FactKind = "plain"): string[] {
  const normalized = parts.map((part) => normalizedText(part));
  normalized[0] = normalized[0]!.trimStart();
  normalized[normalized.length - 1] = normalized[normalized.length - 1]!.trimEnd();
  const folded = foldParts(normalized, false) ?? normalized;
  if (kind !== "resource") return folded;
  if (folded.length === 1) {
    const resolved = canonicalResource(folded[0]!);
    return resolved.ok ? [resolved.value] : folded;
  }
  if (folded.length === 2 && folded[1] === "") {
    const resolved = canonicalResourcePattern(`${folded[0]!}*`);
    return resolved.ok ? [resolved.value.slice(0, -1), ""] : folded;
  }
  return folded;
}

/** A glob's literal parts as skeletons, for deny rules. */
export function skeletonPatternParts(parts: readonly string[]): string[] {
  return parts.map(skeletonOf);
}

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const IBAN_BODY = /^[A-Z0-9]*$/;
// The field types whose scheme, written in any case, names the type.
const TYPED_SCHEMES: ReadonlySet<string> = new Set(["iban", "email", "host", "domain"]);

/**
 * Folds a value (one part) or a glob's parts by the type the scheme of the first part names.
 * Undefined when a value cannot be an instance of its type (an IBAN with other letters).
 */
function foldParts(parts: readonly string[], isValue: boolean): string[] | undefined {
  const scheme = SCHEME.exec(parts[0]!);
  if (scheme === null) return [...parts];
  const name = scheme[1]!.toLowerCase();
  if (!TYPED_SCHEMES.has(name)) return [...parts];
  const out = [`${name}:${parts[0]!.slice(scheme[0].length)}`, ...parts.slice(1)];
  const head = name.length + 1;
  const mapBody = (map: (text: string) => string, from: (index: number) => number = (index) => (index === 0 ? head : 0)) =>
    out.map((part, index) => part.slice(0, from(index)) + map(part.slice(from(index))));
  switch (name) {
    case "iban": {
      const folded = mapBody((text) => text.replace(/\s+/g, "").toUpperCase());
      if (isValue && !IBAN_BODY.test(folded[0]!.slice(head))) return undefined;
      return folded;
    }
    case "host":
    case "domain":
      return withoutTrailingDots(mapBody((text) => text.toLowerCase()));
    case "email": {
      // The domain starts after the last "@" of the whole pattern; parts before that part keep their case.
      let at = -1;
      let partIndex = -1;
      for (const [index, part] of out.entries()) {
        const position = part.lastIndexOf("@");
        if (position >= (index === 0 ? head : 0)) {
          at = position;
          partIndex = index;
        }
      }
      if (partIndex < 0) return out;
      const folded = mapBody(
        (text) => text.toLowerCase(),
        (index) => (index < partIndex ? out[index]!.length : index === partIndex ? at + 1 : 0),
      );
      return withoutTrailingDots(folded);
    }
    default:
      return out;
  }
}

function withoutTrailingDots(parts: string[]): string[] {
  parts[parts.length - 1] = parts[parts.length - 1]!.replace(/\.+$/, "");
  return parts;
}
