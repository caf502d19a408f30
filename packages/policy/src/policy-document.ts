import { DataClassificationSchema, POLICY_EFFECTS, ProvenanceOriginSchema, YokeError } from "@yoke/protocol";
import { z } from "zod/v4";
import { sha256OfJson } from "./digests.js";
import { isValidPattern } from "./glob.js";
import { DIMENSIONS, type Dimension, dimensionOf, type PartialRuleMatch, type PolicyDocument, RESERVED_RULE_IDS } from "./rule-types.js";

const WILDCARD_OR_LIST = 'expected "*" or a non-empty list';
const Wildcard = z.literal("*");
const Pattern = z.string().refine(isValidPattern, { message: 'a pattern may not end with a lone "\\"' });
const list = <T extends z.ZodType>(item: T) => z.union([Wildcard, z.array(item).min(1)], { error: WILDCARD_OR_LIST });
const Patterns = list(Pattern);
const OptionalPatterns = list(Pattern.nullable());

const MatchSchema = z.strictObject({
  tenant: Patterns.optional(),
  principal: z.strictObject({ ids: Patterns.optional(), authenticated: list(z.boolean()).optional() }).optional(),
  scopes: Patterns.optional(),
  tool: z.strictObject({ names: Patterns.optional(), revisions: Patterns.optional(), owners: OptionalPatterns.optional() }).optional(),
  verb: Patterns.optional(),
  resource: Patterns.optional(),
  path: OptionalPatterns.optional(),
  dataClassification: list(DataClassificationSchema).optional(),
  destination: OptionalPatterns.optional(),
  baseRevision: OptionalPatterns.optional(),
  sideEffect: list(z.enum(["none", "idempotent", "reversible", "irreversible"])).optional(),
  expectedEffect: OptionalPatterns.optional(),
  provenance: z
    .union(
      [
        Wildcard,
        z.strictObject({
          roles: z.array(Pattern).min(1),
          origins: z.array(ProvenanceOriginSchema).min(1),
          quantifier: z.enum(["every", "some"]).optional(),
        }),
      ],
      {
        error: 'expected "*" or { roles, origins, quantifier? }',
      },
    )
    .optional(),
  influence: z
    .union([Wildcard, z.array(z.enum(["trusted", "untrusted"])).min(1)], { error: 'expected "*" or a non-empty list of "trusted", "untrusted"' })
    .optional(),
  carries: z
    .union(
      [
        Wildcard,
        z.strictObject({
          classifications: z.array(DataClassificationSchema).min(1).optional(),
          fromToolOutput: z.boolean().optional(),
          fromUntrusted: z.boolean().optional(),
          outward: z.boolean().optional(),
        }),
      ],
      { error: 'expected "*" or { classifications?, fromToolOutput?, fromUntrusted?, outward? }' },
    )
    .optional(),
  delegation: z
    .union([Wildcard, z.array(z.enum(["within", "outside", "none"])).min(1)], { error: 'expected "*" or a non-empty list of "within", "outside", "none"' })
    .optional(),
});

const RuleSchema = z
  .strictObject({ id: z.string().min(1), effect: z.enum(POLICY_EFFECTS), reason: z.string().optional(), match: MatchSchema })
  .superRefine((rule, context) => {
    if (rule.effect === "deny") {
      // "Every entry of these roles comes from these origins" holds when there is no such
      // entry: as a deny condition it would deny calls it never meant to.
      if (rule.match.provenance !== undefined && rule.match.provenance !== "*" && rule.match.provenance.quantifier !== "some") {
        context.addIssue({
          code: "custom",
          path: ["match", "provenance"],
          message:
            'a deny rule cannot carry an "every" provenance condition (it would hold for a call with no destination); use quantifier "some", or put it on the allow and require_approval rules (a call that fails it matches none of them and is denied by default)',
        });
      }
      return;
    }
    const missing = missingDimensions(rule.match as PartialRuleMatch);
    if (missing.length === 0) return;
    context.addIssue({
      code: "custom",
      path: ["match"],
      message: `${rule.effect === "allow" ? "an allow" : "a require_approval"} rule must name every dimension (write "*" for any value); missing: ${missing.join(", ")}`,
      params: { ruleId: rule.id, missing },
    });
  });

/**
 * The zod schema of a policy document, version 1 (`loadPolicy` applies it and turns its
 * issues into POLICY_INVALID). Unknown keys are errors, so a misspelt dimension never silently
 * matches everything.
 *
 * @example
 * ```ts
 * const result = PolicyDocumentSchema.safeParse(json);
 * if (!result.success) console.error(result.error.issues);
 * ```
 */
export const PolicyDocumentSchema = z
  .strictObject({
    version: z.literal(1),
    id: z.string().min(1),
    defaults: z
      .strictObject({
        readOnly: z.enum(["allow", "deny"]).default("allow"),
        untrustedInfluence: z.enum(["require_approval", "allow"]).optional(),
        dataFlow: z.enum(["require_approval", "allow"]).optional(),
        outsideDelegation: z.enum(["require_approval", "allow"]).optional(),
      })
      // The defaults are left out of the loaded document, so a document that does not name them keeps the revision it had.
      .transform(({ untrustedInfluence, dataFlow, outsideDelegation, ...rest }) => ({
        ...rest,
        ...(untrustedInfluence === "allow" ? { untrustedInfluence } : {}),
        ...(dataFlow === "allow" ? { dataFlow } : {}),
        ...(outsideDelegation === "allow" ? { outsideDelegation } : {}),
      }))
      .default({ readOnly: "allow" }),
    rules: z.array(RuleSchema),
  })
  .superRefine((document, context) => {
    const seen = new Set<string>();
    document.rules.forEach((rule, index) => {
      if ((RESERVED_RULE_IDS as readonly string[]).includes(rule.id)) {
        context.addIssue({ code: "custom", path: ["rules", index, "id"], message: `rule id "${rule.id}" is reserved for the engine's defaults` });
      }
      if (seen.has(rule.id)) context.addIssue({ code: "custom", path: ["rules", index, "id"], message: `duplicate rule id "${rule.id}"` });
      seen.add(rule.id);
    });
  });

/** The dimensions a match leaves out, in `DIMENSIONS` order. */
export function missingDimensions(match: PartialRuleMatch): Dimension[] {
  return DIMENSIONS.filter((dimension) => dimensionOf(match, dimension) === undefined);
}

/** The result of `safeLoadPolicy`. */
export type LoadPolicyResult = { readonly success: true; readonly document: PolicyDocument } | { readonly success: false; readonly error: YokeError };

/**
 * Validates a policy document (a parsed JSON value, or JSON text) without throwing: the
 * document with its defaults filled in and frozen, or the POLICY_INVALID error `loadPolicy`
 * would throw.
 *
 * @example
 * ```ts
 * const result = safeLoadPolicy(JSON.parse(text));
 * if (!result.success) console.error(result.error.message);
 * ```
 */
export function safeLoadPolicy(json: unknown): LoadPolicyResult {
  let value = json;
  if (typeof json === "string") {
    try {
      value = JSON.parse(json);
    } catch (cause) {
      return { success: false, error: new YokeError("POLICY_INVALID", "policy document is not valid JSON", { cause }) };
    }
  }
  const parsed = PolicyDocumentSchema.safeParse(value);
  if (parsed.success) return { success: true, document: deepFreeze(structuredClone(parsed.data)) as unknown as PolicyDocument };
  const issues = parsed.error.issues.map((issue) => ({ path: issue.path.map(String), code: issue.code, message: issue.message }));
  const missing = parsed.error.issues.flatMap((issue) =>
    issue.code === "custom" && Array.isArray(issue.params?.missing)
      ? [{ ruleId: issue.params.ruleId as string, dimensions: issue.params.missing as Dimension[] }]
      : [],
  );
  const listed = issues.slice(0, 10).map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
  if (issues.length > listed.length) listed.push(`and ${issues.length - listed.length} more`);
  return { success: false, error: new YokeError("POLICY_INVALID", `policy document is invalid: ${listed.join("; ")}`, { details: { issues, missing } }) };
}

/**
 * Loads a policy document from a parsed JSON value (or JSON text): validated, defaults filled
 * in (`defaults.readOnly` is `"allow"` unless given), frozen. Throws YokeError POLICY_INVALID
 * naming every problem: a schema violation, a duplicate or reserved rule id, or an allow /
 * require_approval rule that leaves a dimension out (`details.missing` lists them per rule).
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 * import { createPolicyEngine, loadPolicy } from "@yoke/policy";
 *
 * const engine = createPolicyEngine(loadPolicy(readFileSync("policy.json", "utf8")));
 * ```
 */
export function loadPolicy(json: unknown): PolicyDocument {
  const result = safeLoadPolicy(json);
  if (!result.success) throw result.error;
  return result.document;
}

/**
 * The policy revision: SHA-256 (lowercase hex) of the canonical JSON of the validated document
 * with its defaults filled in. Key order does not change it (nor leaving out a default);
 * any change to a rule, its order, an id or a default does. Throws POLICY_INVALID for an
 * invalid document.
 *
 * @example
 * ```ts
 * const revision = policyRevisionOf({ version: 1, id: "acme", rules: [] });
 * revision === createPolicyEngine({ version: 1, id: "acme", rules: [] }).revision; // true
 * ```
 */
export function policyRevisionOf(document: PolicyDocument): string {
  return sha256OfJson(loadPolicy(document));
}

function formatPath(path: readonly string[]): string {
  if (path.length === 0) return "document";
  return path.map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`)).join("");
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}
