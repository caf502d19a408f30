/**
 * Glob patterns for string dimensions: `*` is any run of characters, `\` makes the next
 * character literal. Matching is linear-time in practice and never backtracks exponentially
 * (no RegExp): a tuple's values come from model-proposed arguments and must not be able to
 * slow a decision down.
 */

/** A pattern split at its unescaped stars: the parts between them, unescaped. */
interface Glob {
  readonly parts: readonly string[];
  readonly minLength: number;
}

/** True when the pattern is well formed (no trailing lone backslash). */
export function isValidPattern(pattern: string): boolean {
  return splitPattern(pattern) !== undefined;
}

/** The literal parts between unescaped stars; undefined for a malformed pattern. */
export function splitPattern(pattern: string): string[] | undefined {
  const parts: string[] = [];
  let current = "";
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index]!;
    if (char === "\\") {
      if (index + 1 >= pattern.length) return undefined;
      current += pattern[++index]!;
    } else if (char === "*") {
      parts.push(current);
      current = "";
    } else current += char;
  }
  parts.push(current);
  return parts;
}

/** The pattern whose literal parts (between stars) are `parts`: `*` and `\` in a part are escaped. */
export function joinPattern(parts: readonly string[]): string {
  return parts.map((part) => part.replace(/[\\*]/g, (char) => `\\${char}`)).join("*");
}

/**
 * A matcher for a list of patterns (and, for an optional dimension, `null` = absent): a set
 * lookup for the literal ones, a scan for the globs.
 */
export interface PatternSet {
  test(value: unknown): boolean;
}

/** Compiles a list of patterns; call with a validated list (see `isValidPattern`). */
export function compilePatterns(patterns: readonly (string | null)[]): PatternSet {
  const literals = new Set<string>();
  const globs: Glob[] = [];
  let matchesAbsent = false;
  for (const pattern of patterns) {
    if (pattern === null) {
      matchesAbsent = true;
      continue;
    }
    const parts = splitPattern(pattern) ?? [pattern];
    if (parts.length === 1) literals.add(parts[0]!);
    else globs.push({ parts, minLength: parts.reduce((sum, part) => sum + part.length, 0) });
  }
  if (globs.length === 0) {
    return { test: (value) => (typeof value === "string" ? literals.has(value) : value === undefined || value === null ? matchesAbsent : false) };
  }
  return {
    test(value) {
      if (typeof value !== "string") return (value === undefined || value === null) && matchesAbsent;
      if (literals.has(value)) return true;
      for (const glob of globs) if (globMatches(glob, value)) return true;
      return false;
    },
  };
}

/**
 * Star-only globs: the first part is a prefix, the last a suffix, and the middle parts occur in
 * order in between; taking each middle part's leftmost occurrence is always right.
 */
function globMatches(glob: Glob, value: string): boolean {
  if (value.length < glob.minLength) return false;
  const { parts } = glob;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!value.startsWith(first) || !value.endsWith(last)) return false;
  let from = first.length;
  const end = value.length - last.length;
  for (let index = 1; index < parts.length - 1; index++) {
    const part = parts[index]!;
    const at = value.indexOf(part, from);
    if (at < 0 || at + part.length > end) return false;
    from = at + part.length;
  }
  return from <= end;
}
