// A tuple and a rule that matches exactly it, and for every dimension one change to the rule
// and one change to the tuple that make the rule miss on that dimension alone.
import type { PolicyTuple } from "@yoke/protocol";
import { ANY_MATCH, type Dimension, type PolicyDocument, type PolicyRule, type RuleMatch } from "../index.js";

export const REVISION = "a".repeat(64);

export const baseTuple: PolicyTuple = {
  tenantId: "acme",
  principal: { id: "user-1", authenticated: true },
  task: { runId: "run-1", scopes: ["mail:send", "payments:write"] },
  tool: { name: "send_money", revision: REVISION, owner: "payments-team" },
  verb: "transfer",
  resource: "account:12345",
  path: "/accounts/12345",
  dataClassification: "confidential",
  destination: "iban:DE89370400440532013000",
  baseRevision: "rev-7",
  sideEffect: "irreversible",
  expectedEffect: "debit",
  argumentsDigest: "b".repeat(64),
  provenance: [
    { path: "/recipient", role: "recipient", value: "DE89370400440532013000", origin: "trusted", sources: [{ itemId: "task", label: "user", trusted: true }] },
    { path: "/note", value: "rent", origin: "untrusted_only", sources: [{ itemId: "call_1", label: "tool_output", trusted: false }] },
  ],
  influence: { integrity: "trusted", loweredBy: [] },
};

/** Matches `baseTuple` on every dimension, some by glob. */
export const baseMatch: RuleMatch = {
  tenant: ["acme"],
  principal: { ids: ["user-*"], authenticated: [true] },
  scopes: ["payments:write"],
  tool: { names: ["send_money"], revisions: [REVISION], owners: ["payments-team"] },
  verb: ["transfer"],
  resource: ["account:*"],
  path: ["/accounts/*"],
  dataClassification: ["internal", "confidential"],
  destination: ["iban:DE*"],
  baseRevision: ["rev-7"],
  sideEffect: ["irreversible"],
  expectedEffect: ["debit"],
  provenance: { roles: ["recipient"], origins: ["trusted"] },
};

export interface DimensionCase {
  readonly dimension: Dimension;
  /** The base match with this dimension changed so that it excludes `baseTuple`. */
  readonly rule: RuleMatch;
  /** `baseTuple` changed on this dimension only, so that `baseMatch` excludes it. */
  readonly tuple: PolicyTuple;
}

const withTuple = (patch: Partial<PolicyTuple>): PolicyTuple => ({ ...baseTuple, ...patch });
const withMatch = (patch: Partial<RuleMatch>): RuleMatch => ({ ...baseMatch, ...patch });

export const dimensionCases: readonly DimensionCase[] = [
  { dimension: "tenant", rule: withMatch({ tenant: ["globex"] }), tuple: withTuple({ tenantId: "globex" }) },
  {
    dimension: "principal.ids",
    rule: withMatch({ principal: { ids: ["admin-*"], authenticated: [true] } }),
    tuple: withTuple({ principal: { id: "admin-1", authenticated: true } }),
  },
  {
    dimension: "principal.authenticated",
    rule: withMatch({ principal: { ids: ["user-*"], authenticated: [false] } }),
    tuple: withTuple({ principal: { id: "user-1", authenticated: false } }),
  },
  { dimension: "scopes", rule: withMatch({ scopes: ["admin"] }), tuple: withTuple({ task: { runId: "run-1", scopes: ["mail:send"] } }) },
  {
    dimension: "tool.names",
    rule: withMatch({ tool: { names: ["send_email"], revisions: [REVISION], owners: ["payments-team"] } }),
    tuple: withTuple({ tool: { ...baseTuple.tool, name: "send_money_fast" } }),
  },
  {
    dimension: "tool.revisions",
    rule: withMatch({ tool: { names: ["send_money"], revisions: ["c".repeat(64)], owners: ["payments-team"] } }),
    tuple: withTuple({ tool: { ...baseTuple.tool, revision: "d".repeat(64) } }),
  },
  {
    dimension: "tool.owners",
    rule: withMatch({ tool: { names: ["send_money"], revisions: [REVISION], owners: [null] } }),
    tuple: withTuple({ tool: { ...baseTuple.tool, owner: null } }),
  },
  { dimension: "verb", rule: withMatch({ verb: ["refund"] }), tuple: withTuple({ verb: "transfer_all" }) },
  { dimension: "resource", rule: withMatch({ resource: ["account:9*"] }), tuple: withTuple({ resource: "accounts:12345" }) },
  { dimension: "path", rule: withMatch({ path: [null] }), tuple: withoutKey("path") },
  { dimension: "dataClassification", rule: withMatch({ dataClassification: ["public"] }), tuple: withTuple({ dataClassification: "restricted" }) },
  { dimension: "destination", rule: withMatch({ destination: ["iban:FR*"] }), tuple: withTuple({ destination: "iban:FR7630006000011234567890189" }) },
  { dimension: "baseRevision", rule: withMatch({ baseRevision: ["rev-8"] }), tuple: withTuple({ baseRevision: "rev-6" }) },
  { dimension: "sideEffect", rule: withMatch({ sideEffect: ["reversible"] }), tuple: withTuple({ sideEffect: "reversible" }) },
  { dimension: "expectedEffect", rule: withMatch({ expectedEffect: ["credit"] }), tuple: withTuple({ expectedEffect: "debit-all" }) },
  {
    dimension: "provenance",
    rule: withMatch({ provenance: { roles: ["recipient"], origins: ["unsourced"] } }),
    tuple: withTuple({
      provenance: [
        {
          path: "/recipient",
          role: "recipient",
          value: "DE89370400440532013000",
          origin: "untrusted_only",
          sources: [{ itemId: "call_1", label: "tool_output", trusted: false }],
        },
      ],
    }),
  },
];

/** `baseTuple` proposed after an untrusted tool output. */
export const untrustedTuple: PolicyTuple = withTuple({
  influence: { integrity: "untrusted", loweredBy: [{ itemId: "call_1", label: "tool_output", toolName: "read_file" }] },
});

function withoutKey(key: "path"): PolicyTuple {
  const { [key]: _left, ...rest } = baseTuple;
  return rest;
}

export const documentOf = (rules: readonly PolicyRule[], defaults?: PolicyDocument["defaults"]): PolicyDocument =>
  defaults === undefined ? { version: 1, id: "test", rules } : { version: 1, id: "test", defaults, rules };

/** Every dimension `"*"`: matches any tuple (the public `ANY_MATCH`). */
export const anyMatch: RuleMatch = ANY_MATCH;
