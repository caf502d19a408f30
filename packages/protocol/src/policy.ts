import { z } from "zod/v4";
import { DataClassificationSchema } from "./tool-contract.js";
import { CarriesSchema } from "./carries.js";
import { PolicyDelegationSchema } from "./delegation.js";

/**
 * The policy vocabulary: the tuple a decision is made on, the decision, argument provenance,
 * and the interface a policy engine implements (`@yoke/policy` is one; a Cedar engine behind
 * the same interface is another). Pure data: no engine logic lives here.
 */

const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/);
const SideEffectSchema = z.enum(["none", "idempotent", "reversible", "irreversible"]);

/**
 * Where an argument value could have come from, as the runtime found it in the run's
 * context. `label` is the context item's trust label (`user`, `system`, `operator`, `model`,
 * `tool_output`, `retrieved`, `remote_tool_description`, `memory`); `trusted` is whether that
 * label is a principal of the run (system, operator, user) or a field a tool declared
 * trusted (a system of record), never data from outside. `itemId`: the context item
 * (`task`, `system`, the tool call id whose result held it, a memory id); `field`: the JSON
 * pointer inside a structured result where it was found, when it was; `classification`: the
 * data classification of that item (a tool output's is its tool's declared `dataClassification`;
 * the run's principals' input, the model's text and runtime notes are `internal`), present only
 * when it is not `internal` (absent reads as `internal`, as in journals written before it).
 */
export const ProvenanceSourceSchema = z.object({
  itemId: z.string().min(1),
  label: z.string().min(1),
  trusted: z.boolean(),
  toolName: z.string().optional(),
  field: z.string().optional(),
  classification: DataClassificationSchema.optional(),
});
export type ProvenanceSource = z.infer<typeof ProvenanceSourceSchema>;

/**
 * The origin of one argument value, summarised for rules:
 * - `trusted`: found verbatim in at least one trusted source (the user's task, say);
 * - `untrusted_only`: found only in untrusted content (tool output, a retrieved document);
 * - `unsourced`: found in no context item (the model made it up or transformed it).
 */
export const ProvenanceOriginSchema = z.enum(["trusted", "untrusted_only", "unsourced"]);
export type ProvenanceOrigin = z.infer<typeof ProvenanceOriginSchema>;

/**
 * Provenance of one argument value of a proposed call. `path`: a JSON pointer into the
 * arguments (`/recipient`); `role`: what the tool's policy facts say the argument is
 * (`destination`, `recipient`, `url`, `path`, `resource`), when they say; `value` is the
 * value itself (already in the journal as the call's input).
 */
export const ArgumentProvenanceSchema = z.object({
  path: z.string(),
  role: z.string().optional(),
  value: z.string(),
  origin: ProvenanceOriginSchema,
  sources: z.array(ProvenanceSourceSchema),
});
export type ArgumentProvenance = z.infer<typeof ArgumentProvenanceSchema>;

/** How many lowering items an `Influence` lists; the rest are counted in `more`. */
export const INFLUENCE_LISTED_MAX = 8;

/**
 * Control-flow integrity of a proposed call: whether content that no principal of the run
 * wrote could have steered the model's decision to make it. `integrity` is `untrusted` when
 * any item of the context the proposal answered is untrusted (a later trusted input does not
 * raise it: the untrusted text is still there for the model to read). `loweredBy` lists the
 * items that lowered it, in context order, at most `INFLUENCE_LISTED_MAX`; `more` counts the
 * rest. `itemId` and `label` as in `ProvenanceSource` (`toolName`: the tool whose result it was).
 */
export const InfluenceSchema = z.object({
  integrity: z.enum(["trusted", "untrusted"]),
  loweredBy: z.array(z.object({ itemId: z.string().min(1), label: z.string().min(1), toolName: z.string().optional() })).max(INFLUENCE_LISTED_MAX),
  more: z.number().int().positive().optional(),
});
export type Influence = z.infer<typeof InfluenceSchema>;
export type InfluenceIntegrity = Influence["integrity"];

/**
 * The whole tuple a policy decides on. Everything about the call a rule may look at, and
 * nothing a rule must not (no secrets, no capability tokens).
 * - `principal`: who the run acts for, as the harness authenticated it (`authenticated`
 *   false when the caller gave no identity and the tenant stands in);
 * - `task`: the delegated task: the run and the scopes the principal delegated to it;
 * - `tool`: the tool's name, revision digest (the registry's identity) and owner;
 * - `verb`, `resource`, `path`, `destination`, `baseRevision`, `expectedEffect`: the tool's
 *   policy facts for these arguments (`ToolPolicyFacts`);
 * - `argumentsDigest`: SHA-256 of the canonical arguments;
 * - `provenance`: one entry per string argument value the runtime traced;
 * - `influence`: whether untrusted content could have steered the decision to make the call;
 * - `carries`: what the call sends or writes (`Carries`); absent when the tool declares no
 *   `payloads` (a rule conditioned on it then does not match).
 * - `delegation` (absent: the run has no delegation): whether a grant of the run's delegation
 *   covers the call with a count left.
 */
export const PolicyTupleSchema = z.object({
  tenantId: z.string().min(1),
  principal: z.object({ id: z.string().min(1), authenticated: z.boolean() }),
  task: z.object({ runId: z.string().min(1), scopes: z.array(z.string()) }),
  tool: z.object({ name: z.string().min(1), revision: Sha256Schema, owner: z.string().nullable() }),
  verb: z.string().min(1),
  resource: z.string().min(1),
  path: z.string().optional(),
  dataClassification: DataClassificationSchema,
  destination: z.string().optional(),
  baseRevision: z.string().optional(),
  sideEffect: SideEffectSchema,
  expectedEffect: z.string().optional(),
  argumentsDigest: Sha256Schema,
  provenance: z.array(ArgumentProvenanceSchema),
  influence: InfluenceSchema,
  carries: CarriesSchema.optional(),
  delegation: PolicyDelegationSchema.optional(),
});
export type PolicyTuple = z.infer<typeof PolicyTupleSchema>;

export const POLICY_EFFECTS = ["allow", "deny", "require_approval"] as const;
export const PolicyEffectSchema = z.enum(POLICY_EFFECTS);
export type PolicyEffect = z.infer<typeof PolicyEffectSchema>;

/**
 * A decision: the effect, the rule that matched (`default-deny` and the like name the
 * engine's defaults), the revision of the policy that decided (its digest), and a reason a
 * person can read. Journaled with the action it decided.
 */
export const PolicyDecisionSchema = z.object({
  effect: PolicyEffectSchema,
  ruleId: z.string().min(1),
  policyRevision: Sha256Schema,
  reason: z.string(),
});
export type PolicyDecision = z.infer<typeof PolicyDecisionSchema>;

/**
 * What a tool says about one call, for policy: computed from the arguments by the tool's
 * `policy` function. `destinations`: JSON pointers of the arguments that name where data
 * or money goes (recipient, URL, channel, path); rules on provenance look at those.
 * Defaults when a tool declares nothing: verb = the tool's name, resource = `tool:<name>`.
 */
export interface ToolPolicyFacts {
  readonly verb?: string;
  readonly resource?: string;
  readonly path?: string;
  readonly destination?: string;
  readonly baseRevision?: string;
  readonly expectedEffect?: string;
  /** JSON pointers of destination-like arguments, with their role (`recipient`, `url`, …). */
  readonly destinations?: readonly { readonly pointer: string; readonly role: string }[];
  /**
   * JSON pointers of what the call sends or writes (a body, a subject, an attachment, a field
   * it stores): their values are traced like destinations, and the tuple's `carries` says the
   * highest classification among their sources. Absent or empty: the tuple has no `carries`.
   */
  readonly payloads?: readonly string[];
  /**
   * Whether what the call carries leaves the account (a message, a payment, a request to
   * another host): `true` by default when `payloads` are declared, since a tool that sends data
   * and does not say it stays inside is assumed to let it out; `false` for a write the account
   * keeps (its own profile, its own files).
   */
  readonly outward?: boolean;
}

/**
 * A policy engine, version 1: decides synchronously and deterministically on the whole
 * tuple. `revision` is the digest of the rules it decides with; every decision names it.
 *
 * @example
 * ```ts
 * const decision = engine.decide(tuple);
 * if (decision.effect === "deny") console.log(decision.ruleId, decision.reason);
 * ```
 */
export interface PolicyEngineV1 {
  readonly specificationVersion: "v1";
  readonly revision: string;
  decide(tuple: PolicyTuple): PolicyDecision;
}
