import type { PolicyTuple } from "@yoke/protocol";
import { compilePatterns, type PatternSet } from "./glob.js";
import { DIMENSIONS, type Dimension, dimensionOf, type PolicyRule, type ProvenanceCondition } from "./rule-types.js";

/** One dimension of a rule as a predicate on the tuple. */
export interface DimensionTest {
  readonly dimension: Dimension;
  readonly test: (tuple: PolicyTuple) => boolean;
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
  for (const dimension of DIMENSIONS) {
    const value = dimensionOf(rule.match, dimension);
    if (value === undefined || value === "*") continue;
    tests.push({ dimension, test: testFor(dimension, value) });
  }
  return { index, rule, tests };
}

/** True when every dimension of the rule matches. */
export function matchesAll(compiled: CompiledRule, tuple: PolicyTuple): boolean {
  for (const { test } of compiled.tests) if (!test(tuple)) return false;
  return true;
}

/** The dimensions of the rule the tuple fails, in `DIMENSIONS` order. */
export function failedDimensions(compiled: CompiledRule, tuple: PolicyTuple): Dimension[] {
  return compiled.tests.filter(({ test }) => !test(tuple)).map(({ dimension }) => dimension);
}

function testFor(dimension: Dimension, value: unknown): (tuple: PolicyTuple) => boolean {
  if (dimension === "provenance") return provenanceTest(value as ProvenanceCondition);
  if (dimension === "principal.authenticated") {
    const allowed = new Set(value as readonly boolean[]);
    return (tuple) => allowed.has(tuple.principal?.authenticated);
  }
  const patterns = compilePatterns(value as readonly (string | null)[]);
  switch (dimension) {
    case "tenant":
      return (tuple) => patterns.test(tuple.tenantId);
    case "principal.ids":
      return (tuple) => patterns.test(tuple.principal?.id);
    case "scopes":
      return (tuple) => anyMatches(patterns, tuple.task?.scopes);
    case "tool.names":
      return (tuple) => patterns.test(tuple.tool?.name);
    case "tool.revisions":
      return (tuple) => patterns.test(tuple.tool?.revision);
    case "tool.owners":
      return (tuple) => patterns.test(tuple.tool?.owner);
    case "verb":
      return (tuple) => patterns.test(tuple.verb);
    case "resource":
      return (tuple) => patterns.test(tuple.resource);
    case "path":
      return (tuple) => patterns.test(tuple.path);
    case "dataClassification":
      return (tuple) => patterns.test(tuple.dataClassification);
    case "destination":
      return (tuple) => patterns.test(tuple.destination);
    case "baseRevision":
      return (tuple) => patterns.test(tuple.baseRevision);
    case "sideEffect":
      return (tuple) => patterns.test(tuple.sideEffect);
    case "expectedEffect":
      return (tuple) => patterns.test(tuple.expectedEffect);
  }
}

function anyMatches(patterns: PatternSet, values: unknown): boolean {
  if (!Array.isArray(values)) return false;
  for (const value of values) if (typeof value === "string" && patterns.test(value)) return true;
  return false;
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
