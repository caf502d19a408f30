import type { JsonValue } from "@yoke/protocol";

/**
 * The members of a decided event that say what its policy decision was made on beyond the rule
 * that matched: the influence on the decision to make the call, the delegation it was checked
 * against, what the call carries. In the order they are shown.
 */
export const DECISION_FACT_MEMBERS = ["influence", "delegation", "carries"] as const;

/** One member of the policy tuple journaled with a decision, as the event holds it. */
export interface DecisionFact {
  readonly name: string;
  readonly value: JsonValue;
}

/**
 * The decision facts of an event's data as written, not as this reader's schema parses it: a
 * member a newer writer journals (its schema unknown here) is shown rather than dropped. Values
 * are JSON of any shape; whoever renders them must assume none.
 *
 * @example
 * ```ts
 * decisionFactsOf({ rule: "r", influence: { integrity: "trusted", loweredBy: [] }, carries: { classification: "internal" } });
 * // [{ name: "influence", value: { integrity: "trusted", loweredBy: [] } }, { name: "carries", value: { classification: "internal" } }]
 * ```
 */
export function decisionFactsOf(data: unknown): DecisionFact[] {
  if (data === null || typeof data !== "object" || Array.isArray(data)) return [];
  const members = data as Readonly<Record<string, unknown>>;
  const facts: DecisionFact[] = [];
  for (const name of DECISION_FACT_MEMBERS) {
    if (Object.hasOwn(members, name) && members[name] !== undefined) facts.push({ name, value: members[name] as JsonValue });
  }
  return facts;
}

/** A later decision's facts over an earlier one's: a member the later one journals replaces it, one it leaves out stays. */
export function laterDecisionFacts(earlier: readonly DecisionFact[], later: readonly DecisionFact[]): DecisionFact[] {
  const names = new Set(later.map((fact) => fact.name));
  const merged = [...earlier.filter((fact) => !names.has(fact.name)), ...later];
  return DECISION_FACT_MEMBERS.flatMap((name) => merged.filter((fact) => fact.name === name));
}
