// The harness module `yoke resume --harness` loads in the CLI's tests: the scenario's
// harness, with the model's script started after the responses the journal already holds.
import type { HarnessFactory } from "../../src/commands/resume.ts";
import { progressOf, scenarioHarness } from "./scenario.ts";

const factory: HarnessFactory = async ({ journal, tenantId, runId }) => {
  const workspace = process.env.YOKE_TEST_WORKSPACE;
  if (workspace === undefined) throw new Error("YOKE_TEST_WORKSPACE is not set");
  const { answered, lastAt } = await progressOf(journal, tenantId, runId);
  return scenarioHarness({ journal, workspace, answered, lastAt }).harness;
};
export default factory;
