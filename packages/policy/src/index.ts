/**
 * @yoke/policy — standing rules as data, decided on the whole tuple.
 *
 * A policy document (JSON or typed TypeScript) holds rules that allow, deny or require
 * approval for a tool call. `createPolicyEngine` compiles it into a `PolicyEngineV1` whose
 * `decide(tuple)` is pure and deterministic: any matching deny wins, then require_approval,
 * then allow; automatic allow only when a rule matches every dimension of the tuple; a
 * side-effecting call no rule matches is denied. Every decision names its rule, the policy
 * revision (SHA-256 of the canonical document) and a reason. Imports `@yoke/protocol` only.
 */
export { allowRule, approvalRule, definePolicy, denyRule } from "./builders.js";
export { ANY_MATCH, matching, sideEffectsNeedAPerson } from "./short-forms.js";
export type { MatchNarrowing, SideEffectsNeedAPersonOptions } from "./short-forms.js";
export { actionDigestOf } from "./digests.js";
export { createPolicyEngine } from "./engine.js";
export { applyInfluenceDefault, INFLUENCE_DEFAULT_RULE } from "./influence-default.js";
export { applyDataFlowDefault, DATA_FLOW_DEFAULT_RULE } from "./data-flow-default.js";
export type { CarriesCondition } from "./carries-condition.js";
export { applyDelegationDefault, DELEGATION_DEFAULT_RULE } from "./delegation-default.js";
export type { PolicyEngineOptions } from "./engine.js";
export { loadPolicy, PolicyDocumentSchema, policyRevisionOf, safeLoadPolicy } from "./policy-document.js";
export type { LoadPolicyResult } from "./policy-document.js";
export { DIMENSIONS, OPTIONAL_DIMENSIONS, RESERVED_RULE_IDS } from "./rule-types.js";
export type {
  DelegationStanding,
  DenyRule,
  Dimension,
  GrantingRule,
  OptionalPatterns,
  PartialRuleMatch,
  Patterns,
  PolicyDocument,
  PolicyRule,
  ProvenanceCondition,
  RuleMatch,
  SideEffect,
  Wildcard,
} from "./rule-types.js";
