import { parseYokeEvent } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { failingTool, readAll, rig } from "./__fixtures__/harness-fixtures.js";

/** Issue 12, item 5: only a passing completion check earns `verified_success`. */
describe("honest outcomes", () => {
  it("a tool that threw, then the model says done, with no completion check: completed, never verified_success", async () => {
    const { harness, model, journal } = rig([callTools([{ name: "explode" }]), say("done")], { tools: [failingTool] });
    const { runId, outcome, state } = await harness.start("t");
    model.assertConsumed();
    expect(outcome).toEqual({ status: "completed" });
    expect(state.outcome).toEqual({ status: "completed" });
    const events = (await readAll(journal, runId)).map(parseYokeEvent);
    // Nothing was checked, so nothing claims it was: no completion.checked event.
    expect(events.map((event) => event.type)).not.toContain("completion.checked");
    const last = events.at(-1);
    expect(last?.type === "run.completed" && last.data).toEqual({ outcome: { status: "completed" }, turns: 2 });
  });

  it("a plain answer with no check is completed; the same answer with a passing check is verified_success", async () => {
    const unchecked = rig([say("42")]);
    expect((await unchecked.harness.start("t")).outcome).toEqual({ status: "completed" });
    const checked = rig([say("42")], { checkCompletion: async () => ({ passed: true, summary: "the answer is 42" }) });
    const result = await checked.harness.start("t");
    expect(result.outcome).toEqual({ status: "verified_success", summary: "the answer is 42" });
    // The check runs as a verifier (issue 15): journaled as started before it runs, its verdict with the outcome.
    expect(checked.journal.appends.slice(-2)).toEqual([["verifier.started"], ["verifier.finished", "completion.checked", "run.completed"]]);
  });

  it("a run that ended completed resumes to the same outcome without calling the model", async () => {
    const first = rig([say("done")]);
    const { runId } = await first.harness.start("t");
    const again = rig([], { journal: first.journal });
    expect((await again.harness.resume(runId)).outcome).toEqual({ status: "completed" });
  });
});
