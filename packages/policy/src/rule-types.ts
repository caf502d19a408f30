import type { DataClassification, InfluenceIntegrity, ProvenanceOrigin } from "@yoke/protocol";
import type { CarriesCondition } from "./carries-condition.js";

/** Where a call stands against the run's delegation, as a rule names it: a grant covers it with a count left, it does not, or the run has none. */
export type DelegationStanding = "within" | "outside" | "none";

/** The explicit wildcard: the dimension matches any value, absent ones included. */
export type Wildcard = "*";

/**
 * Values or glob patterns a string dimension accepts. In a pattern `*` stands for any run of
 * characters (none included, `:` and `/` included) and `\` makes the next character literal
 * (`\*` is a star); anything else is literal and case-sensitive. A list matches a present
 * value only: `["*"]` is "any value, but there must be one", `"*"` is "anything, or nothing".
 */
export type Patterns = Wildcard | readonly string[];

/** Patterns for a dimension the tuple may lack; `null` in the list matches "absent". */
export type OptionalPatterns = Wildcard | readonly (string | null)[];

/** The side-effect classes of the tuple (`ToolContract.sideEffect`). */
export type SideEffect = "none" | "idempotent" | "reversible" | "irreversible";

/**
 * A provenance condition over the argument provenance entries whose `role` matches one of
 * `roles` (patterns):
 * - `quantifier: "every"` (the default): every such entry has an origin in `origins`. An entry
 *   without a role, or with another role, is not constrained; a call with no such entry meets
 *   the condition. This is how a granting rule requires trusted destinations.
 * - `quantifier: "some"`: at least one such entry has an origin in `origins` (a call with none
 *   does not meet it). This is how a rule singles out a call with a destination taken from
 *   untrusted content, to ask a person or to deny it.
 * A deny rule may carry only a `"some"` condition (`loadPolicy` rejects `"every"` there, where
 * it would hold for a call with no destination at all).
 *
 * @example
 * ```ts
 * const recipientsFromTheUser: ProvenanceCondition = { roles: ["recipient", "url", "channel"], origins: ["trusted"] };
 * const aRecipientFromUntrustedText: ProvenanceCondition = { roles: ["recipient"], origins: ["untrusted_only", "unsourced"], quantifier: "some" };
 * ```
 */
export interface ProvenanceCondition {
  readonly roles: readonly string[];
  readonly origins: readonly ProvenanceOrigin[];
  readonly quantifier?: "every" | "some";
}

/**
 * What a rule matches, one entry per dimension of the tuple. An allow or require_approval
 * rule names every one of them (write `"*"` where any value will do): automatic allow only
 * when a rule matches the whole tuple.
 *
 * - `tenant`: `tuple.tenantId`; `principal.ids` / `principal.authenticated`: `tuple.principal`;
 * - `scopes`: matches when the task holds at least one scope matching one of the patterns;
 * - `tool.names` / `tool.revisions` / `tool.owners` (`null`: no owner): `tuple.tool`;
 * - `verb`, `resource`, `path`, `destination`, `baseRevision`, `expectedEffect`: the tool's
 *   policy facts for the call;
 * - `dataClassification`, `sideEffect`: the tool's contract;
 * - `provenance`: a condition on where the call's destination-like arguments came from;
 * - `influence` (optional; leaving it out is `"*"`): the integrity of what the model had read
 *   when it proposed the call (`tuple.influence.integrity`). A granting rule that lists
 *   `"untrusted"` is the only way to allow a side effect under untrusted influence without a
 *   person (see `PolicyDocument.defaults.untrustedInfluence`); `"*"` is not explicit;
 * - `carries` (optional; leaving it out is `"*"`): a condition on what the call sends or writes
 *   (`tuple.carries`, `CarriesCondition`); a granting rule whose `classifications` list
 *   `confidential` or `restricted` is the only way to let such data from tool outputs leave the
 *   account without a person (see `PolicyDocument.defaults.dataFlow`).
 * - `delegation` (optional; leaving it out is `"*"`): where the call stands against the run's
 *   delegation (`tuple.delegation`): `"within"` a grant with a count left, `"outside"` it, or
 *   `"none"` (the run has no delegation). A granting rule that lists `"outside"` is the only
 *   way to allow a side effect outside the delegation without a person (see
 *   `PolicyDocument.defaults.outsideDelegation`).
 *
 * @example
 * ```ts
 * const match: RuleMatch = {
 *   tenant: ["acme"], principal: { ids: "*", authenticated: [true] }, scopes: ["payments:write"],
 *   tool: { names: ["send_money"], revisions: "*", owners: "*" }, verb: ["transfer"], resource: ["account:*"],
 *   path: "*", dataClassification: "*", destination: "*", baseRevision: "*", sideEffect: ["irreversible"],
 *   expectedEffect: "*", provenance: { roles: ["recipient"], origins: ["trusted"] },
 * };
 * ```
 */
export interface RuleMatch {
  readonly tenant: Patterns;
  readonly principal: { readonly ids: Patterns; readonly authenticated: Wildcard | readonly boolean[] };
  readonly scopes: Patterns;
  readonly tool: { readonly names: Patterns; readonly revisions: Patterns; readonly owners: OptionalPatterns };
  readonly verb: Patterns;
  readonly resource: Patterns;
  readonly path: OptionalPatterns;
  readonly dataClassification: Wildcard | readonly DataClassification[];
  readonly destination: OptionalPatterns;
  readonly baseRevision: OptionalPatterns;
  readonly sideEffect: Wildcard | readonly SideEffect[];
  readonly expectedEffect: OptionalPatterns;
  readonly provenance: Wildcard | ProvenanceCondition;
  readonly influence?: Wildcard | readonly InfluenceIntegrity[];
  readonly carries?: Wildcard | CarriesCondition;
  readonly delegation?: Wildcard | readonly DelegationStanding[];
}

/** What a deny rule matches: any subset of the dimensions; one it leaves out matches anything. */
export interface PartialRuleMatch {
  readonly tenant?: RuleMatch["tenant"];
  readonly principal?: Partial<RuleMatch["principal"]>;
  readonly scopes?: RuleMatch["scopes"];
  readonly tool?: Partial<RuleMatch["tool"]>;
  readonly verb?: RuleMatch["verb"];
  readonly resource?: RuleMatch["resource"];
  readonly path?: RuleMatch["path"];
  readonly dataClassification?: RuleMatch["dataClassification"];
  readonly destination?: RuleMatch["destination"];
  readonly baseRevision?: RuleMatch["baseRevision"];
  readonly sideEffect?: RuleMatch["sideEffect"];
  readonly expectedEffect?: RuleMatch["expectedEffect"];
  /** `"*"`, or a condition with `quantifier: "some"` (see `ProvenanceCondition`). */
  readonly provenance?: Wildcard | (ProvenanceCondition & { readonly quantifier: "some" });
  readonly influence?: RuleMatch["influence"];
  readonly carries?: RuleMatch["carries"];
  readonly delegation?: RuleMatch["delegation"];
}

/** A rule that grants (allow) or parks for a person (require_approval): it names every dimension. */
export interface GrantingRule {
  readonly id: string;
  readonly effect: "allow" | "require_approval";
  readonly reason?: string;
  readonly match: RuleMatch;
}

/** A rule that forbids: it may name only the dimensions it cares about. */
export interface DenyRule {
  readonly id: string;
  readonly effect: "deny";
  readonly reason?: string;
  readonly match: PartialRuleMatch;
}

/** One standing rule. Precedence: any matching deny, then require_approval, then allow. */
export type PolicyRule = GrantingRule | DenyRule;

/**
 * A policy document, version 1: standing rules as data. Its digest (`policyRevisionOf`) is
 * the `policyRevision` every decision names.
 *
 * @example
 * ```ts
 * const document: PolicyDocument = { version: 1, id: "acme", defaults: { readOnly: "allow" }, rules: [] };
 * ```
 */
export interface PolicyDocument {
  readonly version: 1;
  readonly id: string;
  /**
   * What a read-only call (`sideEffect: "none"`) of public or internal data no rule matches
   * gets. Default `"allow"`. A read of confidential or restricted data always needs a rule.
   */
  readonly defaults?: {
    readonly readOnly?: "allow" | "deny";
    /**
     * What a side effect (`sideEffect` other than `"none"`) a rule allows gets when untrusted
     * content could have steered the decision to make it (`tuple.influence.integrity` is
     * `"untrusted"`) and the rule does not list `"untrusted"` in its `influence`:
     * `"require_approval"` (the default: rule `influence-default`, a person decides) or
     * `"allow"` (the rule's allow stands, as before influence existed).
     */
    readonly untrustedInfluence?: "require_approval" | "allow";
    /**
     * What an outward call (`tuple.carries.outward`) a rule allows gets when it carries
     * `confidential` or `restricted` data found in tool outputs and the rule's `carries` does
     * not list that classification: `"require_approval"` (the default: rule `data-flow-default`,
     * a person decides) or `"allow"` (the rule's allow stands).
     */
    readonly dataFlow?: "require_approval" | "allow";
    /**
     * What a side effect a rule allows gets when the run has a delegation and no grant of it
     * covers the call with a count left (`tuple.delegation.within` is false) and the rule does
     * not list `"outside"` in its `delegation`: `"require_approval"` (the default: rule
     * `delegation-default`, a person decides) or `"allow"` (the rule's allow stands).
     */
    readonly outsideDelegation?: "require_approval" | "allow";
  };
  readonly rules: readonly PolicyRule[];
}

/**
 * Every dimension a rule matches on, by the name a reason or an error uses (`details.missing`
 * of POLICY_INVALID, "fails on …" in a default-deny reason).
 *
 * @example
 * ```ts
 * DIMENSIONS.length; // 16
 * DIMENSIONS.includes("tool.revisions"); // true
 * ```
 */
export const DIMENSIONS = [
  "tenant",
  "principal.ids",
  "principal.authenticated",
  "scopes",
  "tool.names",
  "tool.revisions",
  "tool.owners",
  "verb",
  "resource",
  "path",
  "dataClassification",
  "destination",
  "baseRevision",
  "sideEffect",
  "expectedEffect",
  "provenance",
] as const;

/**
 * Dimensions a rule may name and may leave out (then it matches any value): conditions added
 * after version 1 of the document, so documents written before stay valid and mean the same.
 */
export const OPTIONAL_DIMENSIONS = ["influence", "carries", "delegation"] as const;
export type Dimension = (typeof DIMENSIONS)[number] | (typeof OPTIONAL_DIMENSIONS)[number];

/**
 * The rule ids the engine itself decides with; a document may not use them.
 *
 * @example
 * ```ts
 * if (RESERVED_RULE_IDS.includes(decision.ruleId as never)) console.log("decided by a default");
 * ```
 */
export const RESERVED_RULE_IDS = [
  "default-deny",
  "default-read-only",
  "invalid-tuple",
  "influence-default",
  "data-flow-default",
  "delegation-default",
] as const;

/** The value a match gives a dimension, or undefined when the match leaves it out. */
export function dimensionOf(match: PartialRuleMatch | RuleMatch, dimension: Dimension): unknown {
  switch (dimension) {
    case "principal.ids":
      return match.principal?.ids;
    case "principal.authenticated":
      return match.principal?.authenticated;
    case "tool.names":
      return match.tool?.names;
    case "tool.revisions":
      return match.tool?.revisions;
    case "tool.owners":
      return match.tool?.owners;
    default:
      return match[dimension];
  }
}
