// Random policies and tuples over small value domains, so that rules and tuples meet often:
// patterns are domain values, globs cut from them, "*" and (for optional dimensions) null.
import type { ArgumentProvenance, PolicyTuple } from "@yoke/protocol";
import fc from "fast-check";
import type { PolicyDocument, PolicyRule, RuleMatch } from "../index.js";

const DOMAINS = {
  tenant: ["acme", "globex"],
  principal: ["user-1", "user-2", "admin-1"],
  scope: ["mail:send", "payments:write", "admin"],
  name: ["send_money", "read_file", "send_email"],
  revision: ["a".repeat(64), "c".repeat(64)],
  owner: ["payments-team", "mail-team"],
  verb: ["transfer", "read", "send"],
  resource: ["account:1", "account:2", "file:/a", "channel:general"],
  path: ["/a", "/b/c"],
  destination: ["iban:DE1", "iban:FR2", "mail:bob@example.com"],
  baseRevision: ["rev-1", "rev-2"],
  expectedEffect: ["debit", "post"],
  role: ["recipient", "url", "body"],
} as const;
const CLASSIFICATIONS = ["public", "internal", "confidential", "restricted"] as const;
const SIDE_EFFECTS = ["none", "idempotent", "reversible", "irreversible"] as const;
const ORIGINS = ["trusted", "untrusted_only", "unsourced"] as const;
const INTEGRITIES = ["trusted", "untrusted"] as const;
const STANDINGS = ["within", "outside", "none"] as const;

/** A domain value, or a glob cut from one: a prefix, a suffix, or both around a star. */
const patternOf = (domain: readonly string[]) =>
  fc.oneof(
    fc.constantFrom(...domain),
    fc.tuple(fc.constantFrom(...domain), fc.nat(12), fc.nat(12)).map(([value, head, tail]) => {
      const prefix = value.slice(0, Math.min(head, value.length));
      const suffix = value.slice(value.length - Math.min(tail, value.length - prefix.length));
      return `${prefix}*${suffix}`;
    }),
  );
const patterns = (domain: readonly string[]) => fc.oneof(fc.constant("*" as const), fc.array(patternOf(domain), { minLength: 1, maxLength: 3 }));
const optionalPatterns = (domain: readonly string[]) =>
  fc.oneof(fc.constant("*" as const), fc.array(fc.option(patternOf(domain), { nil: null }), { minLength: 1, maxLength: 3 }));
const values = <T>(domain: readonly T[]) =>
  fc.oneof(fc.constant("*" as const), fc.uniqueArray(fc.constantFrom(...domain), { minLength: 1, maxLength: domain.length }));

const flag = fc.option(fc.boolean(), { nil: undefined });
const carriesConditionArbitrary = fc.oneof(
  fc.constant("*" as const),
  fc
    .record({
      classifications: fc.option(fc.uniqueArray(fc.constantFrom(...CLASSIFICATIONS), { minLength: 1, maxLength: 4 }), { nil: undefined }),
      fromToolOutput: flag,
      fromUntrusted: flag,
      outward: flag,
    })
    .map((condition) => Object.fromEntries(Object.entries(condition).filter(([, value]) => value !== undefined))),
);

const matchArbitrary: fc.Arbitrary<RuleMatch> = fc
  .record({
    tenant: patterns(DOMAINS.tenant),
    principal: fc.record({ ids: patterns(DOMAINS.principal), authenticated: values([true, false]) }),
    scopes: patterns(DOMAINS.scope),
    tool: fc.record({ names: patterns(DOMAINS.name), revisions: patterns(DOMAINS.revision), owners: optionalPatterns(DOMAINS.owner) }),
    verb: patterns(DOMAINS.verb),
    resource: patterns(DOMAINS.resource),
    path: optionalPatterns(DOMAINS.path),
    dataClassification: values(CLASSIFICATIONS),
    destination: optionalPatterns(DOMAINS.destination),
    baseRevision: optionalPatterns(DOMAINS.baseRevision),
    sideEffect: values(SIDE_EFFECTS),
    expectedEffect: optionalPatterns(DOMAINS.expectedEffect),
    provenance: fc.oneof(
      fc.constant("*" as const),
      fc.record({
        roles: fc.array(patternOf(DOMAINS.role), { minLength: 1, maxLength: 2 }),
        origins: fc.uniqueArray(fc.constantFrom(...ORIGINS), { minLength: 1, maxLength: 3 }),
      }),
    ),
  })
  .chain((match) =>
    // Influence is optional: left out, "*", or a list.
    fc.option(values(INTEGRITIES), { nil: undefined }).map((influence) => (influence === undefined ? match : { ...match, influence })),
  )
  .chain((match) =>
    // Carries is optional: left out, "*", or a condition of any of its members.
    fc.option(carriesConditionArbitrary, { nil: undefined }).map((carries) => (carries === undefined ? match : { ...match, carries })),
  )
  .chain((match) =>
    // Delegation is optional too: left out, "*", or a list.
    fc.option(values(STANDINGS), { nil: undefined }).map((delegation) => (delegation === undefined ? match : { ...match, delegation })),
  );

const MATCH_KEYS = Object.keys({
  tenant: 0,
  principal: 0,
  scopes: 0,
  tool: 0,
  verb: 0,
  resource: 0,
  path: 0,
  dataClassification: 0,
  destination: 0,
  baseRevision: 0,
  sideEffect: 0,
  expectedEffect: 0,
  influence: 0,
  carries: 0,
  delegation: 0,
});

/** A rule with a placeholder id (the policy numbers them). Deny rules keep a random subset of dimensions and no provenance. */
const ruleArbitrary: fc.Arbitrary<PolicyRule> = fc
  .tuple(fc.constantFrom("allow", "deny", "require_approval", "allow"), matchArbitrary, fc.subarray(MATCH_KEYS, { minLength: 1, maxLength: 4 }))
  .map(([effect, match, kept]) => {
    if (effect !== "deny") return { id: "", effect, match };
    const partial = Object.fromEntries(kept.map((key) => [key, match[key as keyof RuleMatch]]));
    return { id: "", effect, match: partial };
  });

export const policyArbitrary: fc.Arbitrary<PolicyDocument> = fc
  .tuple(
    fc.array(ruleArbitrary, { maxLength: 12 }),
    fc.constantFrom("allow", "deny", undefined),
    fc.constantFrom("allow", "require_approval", undefined),
    fc.constantFrom("allow", "require_approval", undefined),
    fc.constantFrom("allow", "require_approval", undefined),
  )
  .map(([rules, readOnly, untrustedInfluence, dataFlow, outsideDelegation]) => ({
    version: 1 as const,
    id: "random",
    ...(readOnly === undefined && untrustedInfluence === undefined && dataFlow === undefined && outsideDelegation === undefined
      ? {}
      : {
          defaults: {
            ...(readOnly === undefined ? {} : { readOnly }),
            ...(untrustedInfluence === undefined ? {} : { untrustedInfluence }),
            ...(dataFlow === undefined ? {} : { dataFlow }),
            ...(outsideDelegation === undefined ? {} : { outsideDelegation }),
          },
        }),
    rules: rules.map((rule, index) => ({ ...rule, id: `rule-${index}` })),
  }));

const provenanceArbitrary: fc.Arbitrary<ArgumentProvenance> = fc
  .record({ role: fc.option(fc.constantFrom(...DOMAINS.role), { nil: undefined }), origin: fc.constantFrom(...ORIGINS) })
  .map(({ role, origin }) => ({ path: `/${role ?? "other"}`, ...(role === undefined ? {} : { role }), value: "v", origin, sources: [] }));

const optional = <T>(domain: readonly T[]) => fc.option(fc.constantFrom(...domain), { nil: undefined });

export const tupleArbitrary: fc.Arbitrary<PolicyTuple> = fc
  .record({
    tenantId: fc.constantFrom(...DOMAINS.tenant),
    principal: fc.record({ id: fc.constantFrom(...DOMAINS.principal), authenticated: fc.boolean() }),
    task: fc.record({ runId: fc.constant("run-1"), scopes: fc.subarray([...DOMAINS.scope]) }),
    tool: fc.record({
      name: fc.constantFrom(...DOMAINS.name),
      revision: fc.constantFrom(...DOMAINS.revision),
      owner: fc.option(fc.constantFrom(...DOMAINS.owner), { nil: null }),
    }),
    verb: fc.constantFrom(...DOMAINS.verb),
    resource: fc.constantFrom(...DOMAINS.resource),
    path: optional(DOMAINS.path),
    dataClassification: fc.constantFrom(...CLASSIFICATIONS),
    destination: optional(DOMAINS.destination),
    baseRevision: optional(DOMAINS.baseRevision),
    sideEffect: fc.constantFrom(...SIDE_EFFECTS),
    expectedEffect: optional(DOMAINS.expectedEffect),
    argumentsDigest: fc.constant("b".repeat(64)),
    provenance: fc.array(provenanceArbitrary, { maxLength: 3 }),
    influence: fc.constantFrom(...INTEGRITIES).map((integrity) => ({
      integrity,
      loweredBy: integrity === "trusted" ? [] : [{ itemId: "call_1", label: "tool_output", toolName: "read_file" }],
    })),
    carries: fc.option(
      fc.record({ classification: fc.constantFrom(...CLASSIFICATIONS), fromToolOutput: fc.boolean(), fromUntrusted: fc.boolean(), outward: fc.boolean() }),
      { nil: undefined },
    ),
    // None (the run has no delegation), within a grant with a count left, or outside (spent, or no grant).
    delegation: fc.constantFrom(
      undefined,
      { within: true, grantId: "g1", used: 0, max: 1 },
      { within: false, grantId: "g1", used: 1, max: 1 },
      { within: false, used: 0, max: 0 },
    ),
  })
  .map((tuple) => Object.fromEntries(Object.entries(tuple).filter(([, value]) => value !== undefined)) as PolicyTuple);
