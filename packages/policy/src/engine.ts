import { type PolicyDecision, type PolicyEngineV1, type PolicyTuple, PolicyTupleSchema } from "@yoke/protocol";
import { canonicalPatternParts } from "./canonical/fact.js";
import { skeletonOf } from "./canonical/text.js";
import { type CompiledRule, compileRule, FactCache, failedDimensions, integrityOf, matchesAll } from "./compile-rule.js";
import { sha256OfJson } from "./digests.js";
import { applyDataFlowDefault, dataFlowGuarded, explicitFlowAllow, namesDataFlow } from "./data-flow-default.js";
import { applyInfluenceDefault, namesUntrustedInfluence } from "./influence-default.js";
import { applyDelegationDefault, namesOutsideDelegation } from "./delegation-default.js";
import { delegationStanding } from "./delegation-standing.js";
import { loadPolicy } from "./policy-document.js";
import type { PolicyDocument, PolicyRule, SideEffect } from "./rule-types.js";

/**
 * Options of `createPolicyEngine`.
 *
 * @example
 * ```ts
 * const strict = createPolicyEngine(document, { validateTuples: true }); // in tests and debugging
 * ```
 */
export interface PolicyEngineOptions {
  /**
   * Check every tuple against protocol's `PolicyTupleSchema` first and deny a malformed one
   * (rule `invalid-tuple`). Off by default: it costs more than the decision itself, and a
   * malformed tuple already fails every rule that names the field it lacks.
   */
  readonly validateTuples?: boolean;
}

const SIDE_EFFECTS: readonly SideEffect[] = ["none", "idempotent", "reversible", "irreversible"];

/** Rules by side-effect class: four lists, each in document order. */
type BySideEffect = readonly CompiledRule[][];
const emptyBuckets = (): CompiledRule[][] => SIDE_EFFECTS.map(() => []);

/**
 * A policy engine over a document (or a bare list of rules, which becomes a document with id
 * `"inline"`): `decide(tuple)` is pure, synchronous and deterministic.
 *
 * - Precedence: any matching deny, then require_approval, then allow; among rules of the
 *   winning effect, the first in the document names the decision.
 * - No rule matches: a side-effecting call is denied (rule `default-deny`; the reason names the
 *   dimensions the nearest allow or require_approval rule failed on); so is a read-only call of
 *   data classified `confidential` or `restricted` (or anything but `public` / `internal`);
 *   a read-only call (`sideEffect: "none"`) of public or internal data gets `defaults.readOnly`
 *   (rule `default-read-only`, `"allow"` unless the document says otherwise).
 * - A side effect allowed under untrusted influence (`tuple.influence`) needs a person (rule
 *   `influence-default`, `applyInfluenceDefault`) unless an allow rule that matches lists
 *   `"untrusted"` in its `influence` (that rule then names the decision), or the document sets
 *   `defaults.untrustedInfluence: "allow"`.
 * - An allowed outward call carrying personal (`confidential`) or secret (`restricted`) data
 *   found in tool outputs (`tuple.carries`) needs a person (rule `data-flow-default`,
 *   `applyDataFlowDefault`) unless an allow rule that matches lists that classification in its
 *   `carries` (that rule then names the decision), or the document sets `defaults.dataFlow: "allow"`.
 * - With a delegation (`tuple.delegation`), an allowed side effect outside it needs a person
 *   (rule `delegation-default`, `applyDelegationDefault`) unless the allowing rule lists
 *   `"outside"` in its `delegation`, or the document sets `defaults.outsideDelegation: "allow"`;
 *   one within it is not subject to the influence default.
 * - Rules are indexed by tool name and side-effect class, so a decision looks only at the
 *   rules that could match it (and at rules whose tool names are patterns).
 *
 * The document is validated (`loadPolicy`, POLICY_INVALID) and compiled once; changing it
 * afterwards changes nothing: a new policy is a new engine with a new `revision`.
 *
 * @example
 * ```ts
 * import { createPolicyEngine } from "@yoke/policy";
 *
 * const engine = createPolicyEngine(document);
 * const decision = engine.decide(tuple);
 * // { effect: "deny", ruleId: "default-deny", policyRevision: "…", reason: "no rule matches the whole tuple…" }
 * ```
 */
export function createPolicyEngine(document: PolicyDocument | readonly PolicyRule[], options: PolicyEngineOptions = {}): PolicyEngineV1 {
  const loaded = loadPolicy(Array.isArray(document) ? { version: 1, id: "inline", rules: document } : document);
  const revision = sha256OfJson(loaded);
  const readOnlyDefault = loaded.defaults?.readOnly ?? "allow";
  const influenceDefault = loaded.defaults?.untrustedInfluence ?? "require_approval";
  const dataFlowDefault = loaded.defaults?.dataFlow ?? "require_approval";
  const outsideDefault = loaded.defaults?.outsideDelegation ?? "require_approval";
  const byName = new Map<string, BySideEffect>();
  const denyByName = new Map<string, BySideEffect>();
  const anyName = emptyBuckets();
  const granting: CompiledRule[] = [];
  loaded.rules.forEach((rule, index) => {
    const compiled = compileRule(rule, index);
    if (rule.effect !== "deny") granting.push(compiled);
    const names = rule.match.tool?.names;
    const literalNames = names === undefined || names === "*" || names.some(isGlob) ? undefined : names;
    const sideEffects = rule.match.sideEffect;
    for (const [position, sideEffect] of SIDE_EFFECTS.entries()) {
      if (sideEffects !== undefined && sideEffects !== "*" && !sideEffects.includes(sideEffect)) continue;
      if (literalNames === undefined) anyName[position]!.push(compiled);
      else {
        // Keyed as the rule will match: a granting rule by the canonical name, a deny by the skeleton.
        const table = rule.effect === "deny" ? denyByName : byName;
        const keys = literalNames.map((name) => (rule.effect === "deny" ? skeletonOf(name) : canonicalPatternParts([name])[0]!));
        for (const name of new Set(keys)) {
          let buckets = table.get(name);
          if (buckets === undefined) table.set(name, (buckets = emptyBuckets()));
          buckets[position]!.push(compiled);
        }
      }
    }
  });

  const decision = (effect: PolicyDecision["effect"], ruleId: string, reason: string): PolicyDecision =>
    Object.freeze({ effect, ruleId, policyRevision: revision, reason });

  const decide = (tuple: PolicyTuple): PolicyDecision => {
    if (options.validateTuples) {
      const parsed = PolicyTupleSchema.safeParse(tuple);
      if (!parsed.success) {
        const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "tuple"}: ${issue.message}`).join("; ");
        return decision("deny", "invalid-tuple", `the policy tuple is malformed (${problems})`);
      }
    }
    const position = SIDE_EFFECTS.indexOf(tuple.sideEffect);
    // An unknown side-effect class has no bucket: no rule can allow it, and it is not read-only.
    const facts = new FactCache();
    const name = typeof tuple.tool?.name === "string" ? facts.get(tuple.tool.name, "plain") : undefined;
    const named = position < 0 || name?.canonical === undefined ? undefined : byName.get(name.canonical)?.[position];
    const namedDenies = position < 0 || name === undefined ? undefined : denyByName.get(name.skeleton)?.[position];
    const unnamed = position < 0 ? [] : anyName[position]!;
    let deny: CompiledRule | undefined;
    let approval: CompiledRule | undefined;
    let allow: CompiledRule | undefined;
    // The first allow rule that names untrusted influence: it wins over an earlier wildcard one when influence is untrusted.
    let explicitAllow: CompiledRule | undefined;
    for (const candidates of [named ?? [], namedDenies ?? [], unnamed]) {
      for (const compiled of candidates) {
        const effect = compiled.rule.effect;
        const best = effect === "deny" ? deny : effect === "require_approval" ? approval : allow;
        const beaten = best !== undefined && best.index < compiled.index;
        const explicit = effect === "allow" && namesUntrustedInfluence(compiled.rule) && (explicitAllow === undefined || compiled.index < explicitAllow.index);
        if ((beaten && !explicit) || !matchesAll(compiled, tuple, facts)) continue;
        if (explicit) explicitAllow = compiled;
        if (beaten) continue;
        if (effect === "deny") deny = compiled;
        else if (effect === "require_approval") approval = compiled;
        else allow = compiled;
      }
    }
    const defaultApplies =
      influenceDefault === "require_approval" && tuple.sideEffect !== "none" && integrityOf(tuple) === "untrusted" && delegationStanding(tuple) !== "within";
    let winner = deny ?? approval ?? (defaultApplies ? (explicitAllow ?? allow) : allow);
    const flowGuarded = dataFlowDefault === "require_approval" && winner?.rule.effect === "allow" && dataFlowGuarded(tuple);
    if (flowGuarded && !namesDataFlow(winner!.rule)) winner = explicitFlowAllow([named ?? [], unnamed], tuple, facts, defaultApplies) ?? winner;
    if (winner !== undefined) {
      const ruled = decision(winner.rule.effect, winner.rule.id, winner.rule.reason ?? defaultReason(winner.rule, tuple));
      const delegated = outsideDefault === "allow" ? ruled : applyDelegationDefault(tuple, ruled, namesOutsideDelegation(winner.rule));
      const influenced = influenceDefault === "allow" ? delegated : applyInfluenceDefault(tuple, delegated, namesUntrustedInfluence(winner.rule));
      return flowGuarded ? applyDataFlowDefault(tuple, influenced, namesDataFlow(winner.rule)) : influenced;
    }
    const classified = tuple.dataClassification !== "public" && tuple.dataClassification !== "internal";
    if (tuple.sideEffect === "none" && classified) {
      // Reading confidential data is how it starts to leave: such a read needs a rule of its own.
      return decision(
        "deny",
        "default-deny",
        `no rule matches the read-only call to ${describeTool(tuple)} of ${String(tuple.dataClassification)} data; reads of confidential or restricted data are denied by default`,
      );
    }
    if (tuple.sideEffect === "none") {
      return decision(
        readOnlyDefault,
        "default-read-only",
        `no rule matches the read-only call to ${describeTool(tuple)}; policy "${loaded.id}" ${readOnlyDefault === "allow" ? "allows" : "denies"} read-only calls by default`,
      );
    }
    const nearest = nearestRule(tuple, facts, named === undefined ? [unnamed] : [named, unnamed]) ?? nearestRule(tuple, facts, [granting]);
    return decision("deny", "default-deny", `${noMatchReason(tuple, nearest)}; side-effecting calls are denied by default`);
  };

  return Object.freeze({ specificationVersion: "v1" as const, revision, decide });
}

function isGlob(pattern: string): boolean {
  return pattern.includes("*") || pattern.includes("\\");
}

function describeTool(tuple: PolicyTuple): string {
  return `"${String(tuple.tool?.name)}"`;
}

function defaultReason(rule: PolicyRule, tuple: PolicyTuple): string {
  const verb = rule.effect === "deny" ? "denies" : rule.effect === "allow" ? "allows" : "requires approval for";
  return `rule "${rule.id}" ${verb} ${describeTool(tuple)} (${String(tuple.verb)} ${String(tuple.resource)})`;
}

interface Nearest {
  readonly compiled: CompiledRule;
  readonly failed: readonly string[];
}

/**
 * The granting rule failing the fewest dimensions (the first in the document on a tie). The
 * index's candidates first; only when they hold no granting rule, every granting rule: the slow
 * path of a call for a tool or side-effect class no granting rule names.
 */
function nearestRule(tuple: PolicyTuple, facts: FactCache, candidateLists: readonly (readonly CompiledRule[])[]): Nearest | undefined {
  let nearest: Nearest | undefined;
  for (const candidates of candidateLists) {
    for (const compiled of candidates) {
      if (compiled.rule.effect === "deny") continue;
      const failed = failedDimensions(compiled, tuple, facts);
      if (
        nearest === undefined ||
        failed.length < nearest.failed.length ||
        (failed.length === nearest.failed.length && compiled.index < nearest.compiled.index)
      ) {
        nearest = { compiled, failed };
      }
    }
  }
  return nearest;
}

function noMatchReason(tuple: PolicyTuple, nearest: Nearest | undefined): string {
  const subject = `no rule matches the whole tuple of ${describeTool(tuple)} (sideEffect ${String(tuple.sideEffect)})`;
  if (nearest === undefined) return `${subject}: the policy has no allow or require_approval rule`;
  return `${subject}: the nearest rule "${nearest.compiled.rule.id}" (${nearest.compiled.rule.effect}) fails on ${nearest.failed.join(", ")}`;
}
