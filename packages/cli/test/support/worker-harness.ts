// The harness module `yoke worker --harness` loads in the CLI's tests: the scenario's harness,
// its model's script started after the responses the journal already holds, each tool call
// that runs appended to $YOKE_TEST_EFFECTS (one line per effect, O_APPEND: several worker
// processes write one file), and the worker's logger passed on. With $YOKE_TEST_GATE (a named
// pipe) the check blocks until the test writes to it: a run in the worker's hands.
import { appendFileSync, readFileSync } from "node:fs";
import type { WorkerHarnessFactory } from "@yoke/runtime";
import { progressOf, scenarioHarness } from "./scenario.ts";

const factory: WorkerHarnessFactory = async ({ journal, tenantId, runId, logger }) => {
  const workspace = process.env.YOKE_TEST_WORKSPACE;
  const effects = process.env.YOKE_TEST_EFFECTS;
  if (workspace === undefined || effects === undefined) throw new Error("YOKE_TEST_WORKSPACE and YOKE_TEST_EFFECTS must be set");
  const { answered, lastAt } = await progressOf(journal, tenantId, runId);
  const gate = process.env.YOKE_TEST_GATE;
  const onEffect = (tool: string) => {
    appendFileSync(effects, `${process.pid} ${runId} ${tool}\n`);
    // A named pipe: the check waits (the whole process with it) until the test writes to it.
    if (tool === "run_check" && gate !== undefined) readFileSync(gate);
  };
  return scenarioHarness({ journal, workspace, answered, lastAt, onEffect, logger }).harness;
};
export default factory;
