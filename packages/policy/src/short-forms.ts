import { definePolicy } from "./builders.js";
import type { PolicyDocument, PolicyRule, RuleMatch } from "./rule-types.js";

/**
 * A rule match whose every dimension is the wildcard `"*"`: matches any call. A granting rule
 * made from it alone allows (or asks for) everything; narrow it with `matching`.
 */
export const ANY_MATCH: RuleMatch = Object.freeze({
  tenant: "*",
  principal: Object.freeze({ ids: "*", authenticated: "*" }),
  scopes: "*",
  tool: Object.freeze({ names: "*", revisions: "*", owners: "*" }),
  verb: "*",
  resource: "*",
  path: "*",
  dataClassification: "*",
  destination: "*",
  baseRevision: "*",
  sideEffect: "*",
  expectedEffect: "*",
  provenance: "*",
} as const);

/** What `matching` narrows: any dimension of a rule match, `principal` and `tool` member by member. */
export type MatchNarrowing = Omit<Partial<RuleMatch>, "principal" | "tool"> & {
  readonly principal?: Partial<RuleMatch["principal"]>;
  readonly tool?: Partial<RuleMatch["tool"]>;
};

/**
 * A full rule match from the dimensions a rule cares about: every dimension not named is the
 * wildcard, so a granting rule no longer spells out thirteen of them. What is named is taken
 * as given (`loadPolicy` still validates it).
 *
 * @example
 * ```ts
 * const sendFromUser = allowRule(
 *   "send-to-user-addresses",
 *   matching({ tool: { names: ["send_email"] }, provenance: { roles: ["recipient"], origins: ["user"] } }),
 * );
 * ```
 */
export function matching(narrowing: MatchNarrowing): RuleMatch {
  const { principal, tool, ...rest } = narrowing;
  return {
    ...ANY_MATCH,
    ...rest,
    principal: { ...ANY_MATCH.principal, ...principal },
    tool: { ...ANY_MATCH.tool, ...tool },
  };
}

/** Options of `sideEffectsNeedAPerson`. */
export interface SideEffectsNeedAPersonOptions {
  /** The document's id. Default `side-effects-need-a-person`. */
  readonly id?: string;
  /**
   * What a read of `confidential` or `restricted` data gets: `"require_approval"` (the
   * default: a person sees what is read before the model does) or `"allow"`.
   */
  readonly classifiedReads?: "require_approval" | "allow";
  /** Rules of your own, decided with these (a deny among them wins as always). */
  readonly rules?: readonly PolicyRule[];
}

const SIDE_EFFECTS = ["idempotent", "reversible", "irreversible"] as const;

/**
 * The common first policy as one call: every call that changes something waits for a
 * person; reads run (a read of confidential or restricted data also waits, unless
 * `classifiedReads: "allow"`). Its rules are ordinary rules with fixed ids (`reads`,
 * `classified-reads-need-a-person`, `side-effects-need-a-person`), so the revision is stable
 * and every decision names one of them. Add `rules` to let some side effects through: an
 * approval rule that matches still wins over an allow, so narrow the side effects that need
 * a person with your own rules instead when some should run alone.
 *
 * @example
 * ```ts
 * const engine = createPolicyEngine(sideEffectsNeedAPerson());
 * engine.decide(tuple); // { effect: "require_approval", ruleId: "side-effects-need-a-person", … } for a write
 * ```
 */
export function sideEffectsNeedAPerson(options: SideEffectsNeedAPersonOptions = {}): PolicyDocument {
  const classifiedReads = options.classifiedReads ?? "require_approval";
  const rules: PolicyRule[] = [
    {
      id: "reads",
      effect: "allow",
      reason: "a call that changes nothing runs without a person",
      match: matching({ sideEffect: ["none"], ...(classifiedReads === "allow" ? {} : { dataClassification: ["public", "internal"] }) }),
    },
  ];
  if (classifiedReads === "require_approval") {
    rules.push({
      id: "classified-reads-need-a-person",
      effect: "require_approval",
      reason: "a read of confidential or restricted data waits for a person",
      match: matching({ sideEffect: ["none"], dataClassification: ["confidential", "restricted"] }),
    });
  }
  rules.push(
    {
      id: "side-effects-need-a-person",
      effect: "require_approval",
      reason: "a call that changes something waits for a person",
      match: matching({ sideEffect: [...SIDE_EFFECTS] }),
    },
    ...(options.rules ?? []),
  );
  return definePolicy({ version: 1, id: options.id ?? "side-effects-need-a-person", rules });
}
