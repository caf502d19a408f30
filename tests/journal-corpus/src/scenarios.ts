// Every golden scenario, in fixture order.
import type { Scenario } from "./scenario.js";
import { CONTROL_SCENARIOS } from "./scenarios-control.js";
import { DEMO_SCENARIOS } from "./scenarios-demo.js";
import { OUTCOME_SCENARIOS } from "./scenarios-outcomes.js";
import { POLICY_SCENARIOS } from "./scenarios-policy.js";
import { RELEASE_CHANGE_SCENARIOS } from "./scenarios-release-change.js";
import { RELEASE_SCENARIOS } from "./scenarios-releases.js";
import { TURN_SCENARIOS } from "./scenarios-turns.js";

export const SCENARIOS: readonly Scenario[] = [
  ...TURN_SCENARIOS,
  ...POLICY_SCENARIOS,
  ...CONTROL_SCENARIOS,
  ...OUTCOME_SCENARIOS,
  ...RELEASE_SCENARIOS,
  ...DEMO_SCENARIOS,
  ...RELEASE_CHANGE_SCENARIOS,
];

/** The scenario called `name` (a fixture directory's, or a historical journal's `meta.json` `scenario`); throws naming the known ones. */
export function scenarioNamed(name: string): Scenario {
  const found = SCENARIOS.find((scenario) => scenario.name === name);
  if (found === undefined)
    throw new Error(`no golden scenario is named ${JSON.stringify(name)}; known: ${SCENARIOS.map((scenario) => scenario.name).join(", ")}`);
  return found;
}
