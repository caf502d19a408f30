import type { ToolPolicyFacts } from "@yoke/protocol";
import { bankingImplementations } from "./banking-tools.js";
import { coerceArguments } from "./coerce.js";
import { buildEnvironment, resolveArgs, type InjectionValues } from "./environment.js";
import { slackImplementations } from "./slack-tools.js";
import type { ToolImplementation } from "./tool-support.js";
import type { SuiteData, UserTask } from "./types.js";

/** A rule of the policy document format (`@yoke/policy`, version 1), as plain JSON. */
export interface PolicyRuleJson {
  readonly id: string;
  readonly effect: "allow" | "deny" | "require_approval";
  readonly reason?: string;
  readonly match: Readonly<Record<string, unknown>>;
}

/** A policy document (`@yoke/policy`, version 1), as plain JSON: load it with `loadPolicy`. */
export interface PolicyDocumentJson {
  readonly version: 1;
  readonly id: string;
  readonly defaults: { readonly readOnly: "allow" | "deny" };
  readonly rules: readonly PolicyRuleJson[];
}

const IMPLEMENTATIONS: Record<string, Record<string, ToolImplementation>> = { banking: bankingImplementations, slack: slackImplementations };

/** Every dimension a wildcard: an allow rule narrows the ones it names. */
const ANY = {
  tenant: "*",
  principal: { ids: "*", authenticated: "*" },
  scopes: "*",
  tool: { names: "*", revisions: "*", owners: "*" },
  verb: "*",
  resource: "*",
  path: "*",
  dataClassification: "*",
  destination: "*",
  baseRevision: "*",
  sideEffect: "*",
  expectedEffect: "*",
  provenance: "*",
} as const;

/**
 * Policy (i), scoped to one user task: reads of the suite's read-only tools allowed by a rule
 * naming them (their data is confidential, and a confidential read needs a rule), and one
 * allow rule per side-effecting call of the task's ground truth, naming that tool, its
 * resource and its destination exactly as the task needs them (the task's own values; never
 * an attacker's). Everything else falls to default deny. This is what a per-task grant would
 * give; it is not the general claim (see the suite-wide policy).
 *
 * @example
 * ```ts
 * const doc = scopedPolicy(suite, userTask, values);
 * const engine = createPolicyEngine(loadPolicy(doc));
 * ```
 */
export function scopedPolicy(suite: SuiteData, userTask: UserTask, values: InjectionValues): PolicyDocumentJson {
  const env = { state: buildEnvironment(suite, values), dispatched: [] };
  const readOnly = Object.entries(IMPLEMENTATIONS[suite.name]!).flatMap(([name, implementation]) => (implementation.sideEffect === "none" ? [name] : []));
  const rules: PolicyRuleJson[] = [
    {
      id: `${userTask.id}-reads`,
      effect: "allow",
      reason: `${userTask.id} may read what the ${suite.name} suite's read-only tools show`,
      match: { ...ANY, tool: { names: readOnly, revisions: "*", owners: "*" }, sideEffect: ["none"] },
    },
  ];
  const seen = new Set<string>();
  for (const call of userTask.groundTruth) {
    const implementation = IMPLEMENTATIONS[suite.name]![call.function];
    const description = suite.tools.find((tool) => tool.name === call.function);
    if (implementation === undefined || description === undefined || implementation.sideEffect === "none") continue;
    const coerced = coerceArguments(description.parameters, resolveArgs(call, values));
    if (!coerced.ok) continue;
    const facts: ToolPolicyFacts = implementation.policy(env, coerced.value);
    const key = JSON.stringify([call.function, facts.resource, facts.destination]);
    if (seen.has(key)) continue;
    seen.add(key);
    rules.push({
      id: `${userTask.id}-${rules.length}-${call.function}`,
      effect: "allow",
      reason: `${userTask.id} needs ${call.function} on ${facts.resource ?? `tool:${call.function}`}`,
      match: {
        ...ANY,
        tool: { names: [call.function], revisions: "*", owners: "*" },
        resource: [facts.resource ?? `tool:${call.function}`],
        destination: facts.destination === undefined ? "*" : [facts.destination],
      },
    });
  }
  return { version: 1, id: `agentdojo-${suite.name}-${userTask.id}`, defaults: { readOnly: "allow" }, rules };
}
