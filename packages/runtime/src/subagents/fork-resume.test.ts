import { createMemoryJournal } from "@yoke/journal";
import { sequentialIdSource } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { crashingJournal, TENANT } from "../__fixtures__/harness-fixtures.js";
import { reconstructRequest } from "../reconstruct-request.js";
import { CLAIMS, childRunIdIn, eventsOf, harnessOf, routed, spawn } from "./__fixtures__/subagent-rig.js";

const SECRET_NOTE = "the flaky test is tests/parse.test.ts";

describe("a forked child after a crash", () => {
  it("resumes with the fork its run.started holds: the same first request, and the shared item on every later turn", async () => {
    const store = createMemoryJournal();
    const parentSteps = [
      callTools([{ name: "echo", args: { text: SECRET_NOTE }, id: "call_parent_echo" }]),
      spawn("fix the flaky test", ["message:2"]),
      say("done"),
    ];
    const childSteps = [
      callTools([{ name: "echo", args: { text: "one" }, id: "call_echo" }]),
      callTools([{ name: "echo", args: { text: "two" } }]),
      say(CLAIMS),
    ];
    // Appends: parent start, echo call, echo outcome, spawn (0-3); child start, echo call (4-5); the 7th
    // (the child's echo outcome with its second request) is written and the process dies.
    const first = routed(parentSteps, childSteps);
    await expect(harnessOf(first.provider, crashingJournal(store, 6, "written")).start("delegate", { runId: "run_parent" })).rejects.toThrow(/simulated crash/);
    const childScope = { tenantId: TENANT, runId: childRunIdIn(await eventsOf(store, "run_parent")) };
    const before = await reconstructRequest(store, childScope, 1);
    expect(before.request).toEqual(first.childModel.calls[0]!);
    expect(first.childModel.calls).toHaveLength(1);

    // A fresh process: its ids do not repeat the first one's.
    const second = routed(parentSteps.slice(2), childSteps.slice(1));
    const result = await harnessOf(second.provider, store, { ids: sequentialIdSource(10_000) }).resume("run_parent");
    expect(result.outcome?.status).toBe("completed");
    const child = await eventsOf(store, childScope.runId);
    expect(child.filter((event) => event.type === "run.started")).toHaveLength(1);
    expect(child.at(-1)?.type === "run.completed" && child.at(-1)).toMatchObject({ data: { outcome: { status: "verified_success" } } });
    const after = await reconstructRequest(store, childScope, 1);
    expect(after.requestHash).toBe(before.requestHash);
    // The resumed child asked with the request journaled before the crash (recompiled from its fork), and it shows the shared item.
    const resumed = await reconstructRequest(store, childScope, 2);
    expect(second.childModel.calls[0]!).toEqual(resumed.request);
    const shared = resumed.manifest.items.find((item) => item.id === "parent:message:2");
    expect(shared).toMatchObject({ trust: "tool_output", decision: "included" });
    expect(JSON.stringify(second.childModel.calls)).toContain(SECRET_NOTE);
    // The resumed process knows the shared text is journaled (in run.started): no later context.compiled repeats it.
    expect(child.filter((event) => JSON.stringify(event).includes(SECRET_NOTE)).map((event) => event.type)).toEqual(["run.started"]);
  });
});
