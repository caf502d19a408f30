import { createMemoryJournal } from "@yoke/journal";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { functionEngine } from "../__fixtures__/policy-fixtures.js";
import { CLAIMS, eventsOf, harnessOf, routed, spawn } from "./__fixtures__/subagent-rig.js";

describe("a child run's delegation", () => {
  it("is its parent's grants with only the counts the parent has left at the spawn; the child never plans one of its own", async () => {
    const journal = createMemoryJournal();
    const { provider } = routed(
      [callTools([{ name: "echo", args: { text: "one" } }]), spawn("echo twice"), say("done")],
      [callTools([{ name: "echo", args: { text: "ping" }, id: "call_echo" }]), say(CLAIMS)],
    );
    const plans: string[] = [];
    // Counts are spent by calls a policy admits (without a policy engine nothing is decided, so nothing is counted).
    const harness = harnessOf(provider, journal, {
      policy: functionEngine(() => ["allow", "everything"]),
      planDelegation: ({ task }) => {
        plans.push(task);
        return {
          grants: [
            { grantId: "echo", tools: ["echo"], max: 3 },
            { grantId: "spawn", tools: ["spawn_subagent"], max: 1 },
            { grantId: "fail", tools: ["fail*"], max: 2 },
          ],
        };
      },
    });
    const result = await harness.start("echo three times", { runId: "run_parent" });
    expect(result.outcome?.status).toBe("completed");
    // Planned once, for the user's task: never for the child's task, which the parent's model wrote.
    expect(plans).toEqual(["echo three times"]);
    const parent = await eventsOf(journal, "run_parent");
    const reserved = parent.find((event) => event.type === "budget.reserved" && event.data.attribution.kind === "subagent");
    const childRunId = reserved?.type === "budget.reserved" ? reserved.data.attribution.childRunId! : "";
    const child = await eventsOf(journal, childRunId);
    const delegated = child.find((event) => event.type === "run.delegated");
    // echo: 1 of 3 spent by the parent; spawn: spent by this very spawn, so dropped; fail: untouched.
    expect(delegated?.type === "run.delegated" && delegated.data.delegation).toEqual({
      source: "planner",
      grants: [
        { grantId: "echo", tools: ["echo"], max: 2 },
        { grantId: "fail", tools: ["fail*"], max: 2 },
      ],
    });
  });
});
