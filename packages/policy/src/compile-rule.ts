import type { PolicyTuple } from "@yoke/protocol";
import { type CanonicalFact, canonicalFact, canonicalPatternParts, type FactKind, skeletonPatternParts } from "./canonical/fact.js";
import { type CarriesCondition, carriesTest } from "./carries-condition.js";
import { compilePatterns, joinPattern, splitPattern } from "./glob.js";
import { delegationStanding } from "./delegation-standing.js";
import { DIMENSIONS, type Dimension, dimensionOf, OPTIONAL_DIMENSIONS, type PolicyRule, type ProvenanceCondition } from "./rule-types.js";

/**
 * The canonical facts of one tuple, computed once per decision and shared by every rule that
 * looks at them (a value is canonicalized once, however many rules constrain it).
 */
export class FactCache {
  readonly #facts = new Map<string, CanonicalFact>();
  get(value: string, kind: FactKind): CanonicalFact {
    const key = `${kind}\u0000${value}`;
    let fact = this.#facts.get(key);
    if (fact === undefined) this.#facts.set(key, (fact = canonicalFact(value, kind)));
    return fact;
  }
}

/** One dimension of a rule as a predicate on the tuple. */
export interface DimensionTest {
  readonly dimension: Dimension;
  readonly test: (tuple: PolicyTuple, facts: FactCache) => boolean;
}

/** A rule ready to decide: only its non-wildcard dimensions, each compiled once. */
export interface CompiledRule {
  /** Position in the document: among rules of one effect, the first that matches names the decision. */
  readonly index: number;
  readonly rule: PolicyRule;
  readonly tests: readonly DimensionTest[];
}

export function compileRule(rule: PolicyRule, index: number): CompiledRule {
  const tests: DimensionTest[] = [];
  for (const dimension of [...DIMENSIONS, ...OPTIONAL_DIMENSIONS]) {
    const value = dimensionOf(rule.match, dimension);
    if (value === undefined || value === "*") continue;
    tests.push({ dimension, test: testFor(dimension, value, rule.effect === "deny") });
  }
  return { index, rule, tests };
}

/** True when every dimension of the rule matches. */
export function matchesAll(compiled: CompiledRule, tuple: PolicyTuple, facts: FactCache): boolean {
  for (const { test } of compiled.tests) if (!test(tuple, facts)) return false;
  return true;
}

/** The dimensions of the rule the tuple fails, in `DIMENSIONS` order. */
export function failedDimensions(compiled: CompiledRule, tuple: PolicyTuple, facts: FactCache): Dimension[] {
  return compiled.tests.filter(({ test }) => !test(tuple, facts)).map(({ dimension }) => dimension);
}

const RESOURCE_DIMENSIONS: ReadonlySet<Dimension> = new Set(["resource", "path", "destination"]);

/**
 * Patterns on a string dimension, matched on what a value means (`canonical/fact.ts`):
 * - a deny rule matches the value as written, its canonical form, or its skeleton (what it
 *   looks like): canonicalization only ever adds matches to a deny;
 * - a granting rule matches the canonical form only, and never a value whose meaning cannot
 *   be decided or that mixes scripts in a word, unless the list accepts any value (a bare `*`).
 */
function stringTest(list: readonly (string | null)[], kind: FactKind, deny: boolean): (value: unknown, facts: FactCache) => boolean {
  const raw = compilePatterns(list);
  const mapped = (map: (parts: readonly string[]) => string[]) =>
    compilePatterns(list.map((pattern) => (pattern === null ? null : joinPattern(map(splitPattern(pattern) ?? [pattern])))));
  const canonical = mapped((parts) => canonicalPatternParts(parts, kind));
  if (deny) {
    const skeleton = mapped(skeletonPatternParts);
    return (value, facts) => {
      if (raw.test(value)) return true;
      if (typeof value !== "string") return false;
      const fact = facts.get(value, kind);
      return (fact.canonical !== undefined && canonical.test(fact.canonical)) || skeleton.test(fact.skeleton);
    };
  }
  const anyValue = list.some((pattern) => pattern !== null && splitPattern(pattern)?.every((part) => part === "") === true);
  return (value, facts) => {
    if (typeof value !== "string") return raw.test(value);
    if (anyValue) return true;
    const fact = facts.get(value, kind);
    return fact.canonical !== undefined && !fact.mixedScript && canonical.test(fact.canonical);
  };
}

function testFor(dimension: Dimension, value: unknown, deny: boolean): (tuple: PolicyTuple, facts: FactCache) => boolean {
  if (dimension === "provenance") return provenanceTest(value as ProvenanceCondition);
  if (dimension === "influence") {
    const levels = new Set(value as readonly string[]);
    return (tuple) => levels.has(integrityOf(tuple));
  }
  if (dimension === "carries") return carriesTest(value as CarriesCondition);
  if (dimension === "delegation") {
    const standings = new Set(value as readonly string[]);
    return (tuple) => standings.has(delegationStanding(tuple));
  }
  if (dimension === "principal.authenticated") {
    const allowed = new Set(value as readonly boolean[]);
    return (tuple) => allowed.has(tuple.principal?.authenticated);
  }
  const test = stringTest(value as readonly (string | null)[], RESOURCE_DIMENSIONS.has(dimension) ? "resource" : "plain", deny);
  const patterns = { test };
  switch (dimension) {
    case "tenant":
      return (tuple, facts) => patterns.test(tuple.tenantId, facts);
    case "principal.ids":
      return (tuple, facts) => patterns.test(tuple.principal?.id, facts);
    case "scopes":
      return (tuple, facts) => anyMatches(patterns, tuple.task?.scopes, facts);
    case "tool.names":
      return (tuple, facts) => patterns.test(tuple.tool?.name, facts);
    case "tool.revisions":
      return (tuple, facts) => patterns.test(tuple.tool?.revision, facts);
    case "tool.owners":
      return (tuple, facts) => patterns.test(tuple.tool?.owner, facts);
    case "verb":
      return (tuple, facts) => patterns.test(tuple.verb, facts);
    case "resource":
      return (tuple, facts) => patterns.test(tuple.resource, facts);
    case "path":
      return (tuple, facts) => patterns.test(tuple.path, facts);
    case "dataClassification":
      return (tuple, facts) => patterns.test(tuple.dataClassification, facts);
    case "destination":
      return (tuple, facts) => patterns.test(tuple.destination, facts);
    case "baseRevision":
      return (tuple, facts) => patterns.test(tuple.baseRevision, facts);
    case "sideEffect":
      return (tuple, facts) => patterns.test(tuple.sideEffect, facts);
    case "expectedEffect":
      return (tuple, facts) => patterns.test(tuple.expectedEffect, facts);
  }
}

function anyMatches(patterns: { test(value: unknown, facts: FactCache): boolean }, values: unknown, facts: FactCache): boolean {
  if (!Array.isArray(values)) return false;
  for (const value of values) if (typeof value === "string" && patterns.test(value, facts)) return true;
  return false;
}

/**
 * The tuple's influence integrity; a tuple without a well-formed one counts as untrusted (fail
 * closed: nothing shows that no untrusted content was read).
 */
export function integrityOf(tuple: PolicyTuple): "trusted" | "untrusted" {
  return tuple.influence?.integrity === "trusted" ? "trusted" : "untrusted";
}

function provenanceTest(condition: ProvenanceCondition): (tuple: PolicyTuple) => boolean {
  const roles = compilePatterns(condition.roles);
  const origins = new Set<string>(condition.origins);
  const constrained = (entry: PolicyTuple["provenance"][number] | undefined) => typeof entry?.role === "string" && roles.test(entry.role);
  if (condition.quantifier === "some") {
    return (tuple) => Array.isArray(tuple.provenance) && tuple.provenance.some((entry) => constrained(entry) && origins.has(entry.origin));
  }
  return (tuple) => {
    // Fail closed: a tuple without its provenance list, or with an entry that is not an
    // object with a string role (when it has one), cannot show the condition holds; an `all`
    // over entries it skipped would hold vacuously.
    if (!Array.isArray(tuple.provenance)) return false;
    for (const entry of tuple.provenance) {
      if (entry === null || typeof entry !== "object" || (entry.role !== undefined && typeof entry.role !== "string")) return false;
      if (constrained(entry) && !origins.has(entry.origin)) return false;
    }
    return true;
  };
}
