// Issue 33, item 7: every glob of the shipped policies, against confusable spellings of the
// values it matches. A deny rule built from the glob must match every variant; an allow rule
// built from it must match the variants that mean the same (invisible characters, padding,
// fullwidth forms, case where the field folds it) and no variant with a letter of another
// script. The policies: the two suite-wide documents under policies/, the per-task scoped
// policies of every user task, and the README's example.
import { readFileSync } from "node:fs";
import { ANY_MATCH, createPolicyEngine, loadPolicy } from "@yoke/policy";
import type { PolicyTuple } from "@yoke/protocol";
import { SUITE_NAMES, agentDojoSuite, injectionValues, scopedPolicy } from "@yoke/testkit/security";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { suiteDeclarations } from "./harnesses.ts";

type Field =
  | "tenant"
  | "principal.ids"
  | "scopes"
  | "tool.names"
  | "tool.owners"
  | "verb"
  | "resource"
  | "path"
  | "destination"
  | "baseRevision"
  | "expectedEffect";
const FIELDS: readonly Field[] = [
  "tenant",
  "principal.ids",
  "scopes",
  "tool.names",
  "tool.owners",
  "verb",
  "resource",
  "path",
  "destination",
  "baseRevision",
  "expectedEffect",
];

interface ShippedGlob {
  readonly policy: string;
  readonly field: Field;
  readonly pattern: string;
}

function patternsOf(match: Record<string, unknown>, field: Field): readonly string[] {
  const [head, tail] = field.split(".") as [string, string | undefined];
  const value = tail === undefined ? match[head] : (match[head] as Record<string, unknown> | undefined)?.[tail];
  return Array.isArray(value) ? value.filter((pattern): pattern is string => typeof pattern === "string") : [];
}

const README_RULES = [
  {
    id: "pay-known-payees",
    effect: "allow",
    match: {
      tenant: ["acme"],
      scopes: ["payments:write"],
      tool: { names: ["send_money"] },
      verb: ["transfer"],
      resource: ["account:*"],
      destination: ["iban:*"],
    },
  },
  { id: "no-transfers-abroad", effect: "deny", match: { destination: ["iban:FR*"] } },
];

function shippedGlobs(): ShippedGlob[] {
  const documents: { id: string; rules: readonly { match: Record<string, unknown> }[] }[] = [{ id: "README", rules: README_RULES }];
  for (const suite of SUITE_NAMES) {
    documents.push(JSON.parse(readFileSync(new URL(`../policies/${suite}.json`, import.meta.url), "utf8")));
    const data = agentDojoSuite(suite);
    for (const userTask of data.userTasks) documents.push(scopedPolicy(data, userTask, injectionValues(data, userTask), suiteDeclarations(suite)) as never);
  }
  const seen = new Set<string>();
  const globs: ShippedGlob[] = [];
  for (const document of documents)
    for (const rule of document.rules)
      for (const field of FIELDS)
        for (const pattern of patternsOf(rule.match, field)) {
          const key = `${field}\u0000${pattern}`;
          if (seen.has(key)) continue;
          seen.add(key);
          globs.push({ policy: document.id, field, pattern });
        }
  return globs;
}

const ANY: Record<string, unknown> = { ...ANY_MATCH };

function matchOn(field: Field, pattern: string, base: Record<string, unknown>): Record<string, unknown> {
  const [head, tail] = field.split(".") as [string, string | undefined];
  if (tail === undefined) return { ...base, [head]: [pattern] };
  return { ...base, [head]: { ...((base[head] as object | undefined) ?? {}), [tail]: [pattern] } };
}

const TUPLE: PolicyTuple = {
  tenantId: "acme",
  principal: { id: "user-1", authenticated: true },
  task: { runId: "run-1", scopes: ["payments:write"] },
  tool: { name: "send_money", revision: "a".repeat(64), owner: null },
  verb: "transfer",
  resource: "account:1",
  dataClassification: "internal",
  sideEffect: "irreversible",
  argumentsDigest: "b".repeat(64),
  provenance: [],
  influence: { integrity: "trusted", loweredBy: [] },
};

function tupleWith(field: Field, value: string): PolicyTuple {
  switch (field) {
    case "tenant":
      return { ...TUPLE, tenantId: value };
    case "principal.ids":
      return { ...TUPLE, principal: { ...TUPLE.principal, id: value } };
    case "scopes":
      return { ...TUPLE, task: { ...TUPLE.task, scopes: [value] } };
    case "tool.names":
      return { ...TUPLE, tool: { ...TUPLE.tool, name: value } };
    case "tool.owners":
      return { ...TUPLE, tool: { ...TUPLE.tool, owner: value } };
    default:
      return { ...TUPLE, [field]: value };
  }
}

/** The glob's literal parts (between unescaped stars). */
function partsOf(pattern: string): string[] {
  const parts: string[] = [];
  let current = "";
  for (let index = 0; index < pattern.length; index++) {
    if (pattern[index] === "\\") current += pattern[++index] ?? "";
    else if (pattern[index] === "*") {
      parts.push(current);
      current = "";
    } else current += pattern[index];
  }
  parts.push(current);
  return parts;
}

const INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\u00ad", "\ufeff", "\u200e", "\u202a", "\u180e"];
const PADDING = [" ", "\t", "\u00a0", "\u3000", "\u2003"];
const HOMOGLYPHS: Record<string, string> = {
  a: "а",
  c: "с",
  e: "е",
  o: "о",
  p: "р",
  x: "х",
  y: "у",
  i: "і",
  s: "ѕ",
  A: "А",
  B: "В",
  E: "Е",
  H: "Н",
  K: "К",
  M: "М",
  O: "Ο",
  P: "Р",
  T: "Т",
  X: "Χ",
};

type Change =
  | { kind: "invisible"; at: number; char: number }
  | { kind: "pad"; char: number; end: boolean }
  | { kind: "fullwidth"; at: number }
  | { kind: "homoglyph"; at: number }
  | { kind: "case"; at: number };

const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constant("invisible" as const), at: fc.nat(), char: fc.nat() }),
  fc.record({ kind: fc.constant("pad" as const), char: fc.nat(), end: fc.boolean() }),
  fc.record({ kind: fc.constant("fullwidth" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("homoglyph" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("case" as const), at: fc.nat() }),
);

interface Variant {
  readonly value: string;
  /** A letter of another script replaced a Latin letter inside a word of Latin letters. */
  readonly homoglyph: boolean;
  /** A letter's case changed. */
  readonly recased: boolean;
}

/** Applies the changes to an ASCII value, keeping track of what kind of variant it became. */
function variantOf(value: string, changes: readonly Change[]): Variant {
  const chars = [...value];
  let homoglyph = false;
  let recased = false;
  let pads = "";
  let tail = "";
  for (const next of changes) {
    if (next.kind === "pad") {
      if (next.end) tail += PADDING[next.char % PADDING.length];
      else pads += PADDING[next.char % PADDING.length];
      continue;
    }
    if (chars.length === 0) continue;
    const at = next.at % chars.length;
    const char = chars[at]!;
    if (next.kind === "invisible") chars.splice(at, 0, INVISIBLE[next.char % INVISIBLE.length]!);
    else if (next.kind === "fullwidth" && /^[!-~]$/.test(char)) chars[at] = String.fromCodePoint(char.codePointAt(0)! + 0xfee0);
    else if (next.kind === "case" && /^[A-Za-z]$/.test(char)) {
      chars[at] = char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase();
      recased = true;
    } else if (next.kind === "homoglyph" && HOMOGLYPHS[char] !== undefined) {
      // Only inside a word with another ASCII letter: a word of one foreign letter is not mixed.
      const word = wordAround(chars, at);
      if (word.filter((letter) => /^[A-Za-z]$/.test(letter)).length >= 2) {
        chars[at] = HOMOGLYPHS[char]!;
        homoglyph = true;
      }
    }
  }
  return { value: `${pads}${chars.join("")}${tail}`, homoglyph, recased };
}

function wordAround(chars: readonly string[], at: number): string[] {
  const inWord = (char: string) => /^[\p{L}\p{N}\p{M}]$/u.test(char) || INVISIBLE.includes(char);
  let start = at;
  let end = at;
  while (start > 0 && inWord(chars[start - 1]!)) start--;
  while (end < chars.length - 1 && inWord(chars[end + 1]!)) end++;
  return chars.slice(start, end + 1).filter((char) => !INVISIBLE.includes(char));
}

/** Fields whose values fold case (by the type their scheme names). */
const foldsCase = (value: string) => /^(iban|host|domain):/i.test(value);

describe("every glob of the shipped policies holds against confusable spellings (issue 33, item 7)", () => {
  const globs = shippedGlobs();

  it("collects the globs of the suite-wide, per-task and README policies", () => {
    expect(globs.length).toBeGreaterThan(40);
    expect(globs.map((glob) => glob.pattern)).toEqual(expect.arrayContaining(["iban:FR*", "send_money", "payment:known-payee"]));
  });

  it("a deny built from each glob matches every variant; an allow matches exactly the variants that mean the same", () => {
    for (const glob of globs) {
      const deny = createPolicyEngine(
        loadPolicy({
          version: 1,
          id: "deny",
          rules: [
            { id: "everything", effect: "allow", match: ANY },
            { id: "the-glob", effect: "deny", match: matchOn(glob.field, glob.pattern, {}) },
          ],
        }),
      );
      const allow = createPolicyEngine(
        loadPolicy({ version: 1, id: "allow", rules: [{ id: "the-glob", effect: "allow", match: matchOn(glob.field, glob.pattern, ANY) }] }),
      );
      const parts = partsOf(glob.pattern);
      fc.assert(
        fc.property(
          fc.array(fc.stringMatching(/^[0-9A-Za-z]{0,6}$/), { minLength: parts.length - 1, maxLength: parts.length - 1 }),
          fc.array(change, { minLength: 1, maxLength: 4 }),
          (fills, changes) => {
            const value = parts.map((part, index) => (index === 0 ? part : `${fills[index - 1]}${part}`)).join("");
            const variant = variantOf(value, changes);
            const where = `${glob.policy} ${glob.field} ${JSON.stringify(glob.pattern)}: ${JSON.stringify(variant.value)}`;
            expect(deny.decide(tupleWith(glob.field, value)).ruleId, where).toBe("the-glob");
            expect(deny.decide(tupleWith(glob.field, variant.value)).ruleId, where).toBe("the-glob");
            const allowed = allow.decide(tupleWith(glob.field, variant.value)).effect === "allow";
            if (variant.homoglyph) expect(allowed, where).toBe(false);
            else if (!variant.recased || foldsCase(value)) expect(allowed, where).toBe(true);
          },
        ),
        { numRuns: 60 },
      );
    }
  });
});
