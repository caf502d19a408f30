import type { ToolPolicyFacts } from "@yoke/protocol";
import { coerceArguments } from "./coerce.js";
import { policyFactsOf, type ToolDeclarations } from "./declarations.js";
import { defaultDeclarationsFor } from "./default-policy.js";
import { buildEnvironment, resolveArgs, type InjectionValues } from "./environment.js";
import { ANY, type PolicyDocumentJson, type PolicyRuleJson } from "./policy-json.js";
import type { SuiteData, UserTask } from "./types.js";

export type { PolicyDocumentJson, PolicyRuleJson } from "./policy-json.js";

/**
 * Policy (i), scoped to one user task: reads of the suite's read-only tools allowed by a rule
 * naming them (their data is confidential, and a confidential read needs a rule), and one
 * allow rule per side-effecting call of the task's ground truth, naming that tool, its
 * resource and its destination exactly as the task needs them (the task's own values; never
 * an attacker's). Everything else falls to default deny. This is what a per-task grant would
 * give; it is not the general claim (see the suite-wide policy). The tools' facts come from
 * `declarations` (default: derived from `tools.json`).
 *
 * @example
 * ```ts
 * const doc = scopedPolicy(suite, userTask, values);
 * const engine = createPolicyEngine(loadPolicy(doc));
 * ```
 */
export function scopedPolicy(
  suite: SuiteData,
  userTask: UserTask,
  values: InjectionValues,
  declarations: ToolDeclarations = defaultDeclarationsFor(suite.tools, suite.name),
): PolicyDocumentJson {
  const env = { state: buildEnvironment(suite, values), dispatched: [] };
  const readOnly = Object.entries(declarations.tools).flatMap(([name, declaration]) => (declaration.sideEffect === "none" ? [name] : []));
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
    const declaration = declarations.tools[call.function];
    const description = suite.tools.find((tool) => tool.name === call.function);
    if (declaration === undefined || description === undefined || declaration.sideEffect === "none") continue;
    const coerced = coerceArguments(description.parameters, resolveArgs(call, values));
    if (!coerced.ok) continue;
    const facts: ToolPolicyFacts = policyFactsOf(declaration, env, coerced.value);
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
