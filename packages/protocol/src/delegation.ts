import { z } from "zod/v4";
import { YokeError } from "./errors.js";

/**
 * A run's delegation: the task's own authority, set before the model reads anything. Each
 * grant names which tools (name globs, `*` matching any run of characters), optionally which
 * resources and verbs of their policy facts, and how many admitted calls it covers (`max`).
 * `source` says who set it: the application (`harness.start(task, { delegation })`) or a
 * planning step that saw only the user's input and the tool declarations.
 */
export const DELEGATION_LIMITS = { grants: 64, patterns: 32, patternLength: 256, max: 10_000 } as const;

const Pattern = z.string().min(1).max(DELEGATION_LIMITS.patternLength);
const Patterns = z.array(Pattern).min(1).max(DELEGATION_LIMITS.patterns);

export const DelegationGrantSchema = z.strictObject({
  grantId: z.string().min(1).max(DELEGATION_LIMITS.patternLength),
  tools: Patterns,
  resources: Patterns.optional(),
  verbs: Patterns.optional(),
  max: z.number().int().positive().max(DELEGATION_LIMITS.max),
});
export type DelegationGrant = z.infer<typeof DelegationGrantSchema>;

export const DelegationSchema = z
  .strictObject({
    source: z.enum(["application", "planner"]),
    grants: z.array(DelegationGrantSchema).max(DELEGATION_LIMITS.grants),
  })
  .superRefine((delegation, context) => {
    const seen = new Set<string>();
    for (const [index, grant] of delegation.grants.entries()) {
      if (seen.has(grant.grantId)) context.addIssue({ code: "custom", path: ["grants", index, "grantId"], message: `grant id ${grant.grantId} is used twice` });
      seen.add(grant.grantId);
    }
  });
export type Delegation = z.infer<typeof DelegationSchema>;

/**
 * Where a decided call stands against the run's delegation, as the policy tuple carries it
 * (absent: the run has no delegation). `within`: a grant covers the call and has a count
 * left; `grantId`: the grant that covers it (also when its count is spent, then `within` is
 * false); `used`: admitted calls that grant had before this one; `max`: its count (both 0
 * when no grant covers the call).
 */
export const PolicyDelegationSchema = z.object({
  within: z.boolean(),
  grantId: z.string().min(1).optional(),
  used: z.number().int().nonnegative(),
  max: z.number().int().nonnegative(),
});
export type PolicyDelegation = z.infer<typeof PolicyDelegationSchema>;

/**
 * A run's delegation as the fold keeps it: the one `run.delegated` journaled, and how much of
 * each grant is spent. `used` counts, by grant id, the calls admitted within the grant (allowed,
 * held, or approved by a person) and the calls parked for a person within it, which hold their
 * count until the person decides (a denial or a void gives it back): so two calls of one batch
 * both count, and a resume counts what the first process counted.
 */
export interface RunDelegation {
  readonly delegation: Delegation;
  readonly used: Readonly<Record<string, number>>;
  /** Parked actions holding a count, by action id: the grant they hold it from. */
  readonly parked: Readonly<Record<string, string>>;
}

/**
 * A delegation checked and copied to exactly its fields (what `run.delegated` journals):
 * CONFIG_INVALID naming `option` and each problem for anything else.
 *
 * @example
 * ```ts
 * parseDelegation({ source: "application", grants: [{ grantId: "pay", tools: ["send_money"], max: 1 }] }, "delegation");
 * ```
 */
export function parseDelegation(value: unknown, option: string): Delegation {
  const parsed = DelegationSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${[option, ...issue.path].join(".")}: ${issue.message}`);
  throw new YokeError("CONFIG_INVALID", `${option} is not a valid delegation (${problems.join("; ")})`, { details: { option } });
}
