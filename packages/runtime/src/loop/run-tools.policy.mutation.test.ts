// run-tools.ts, an action another writer proposed (or validated) and never authorized, decided by
// the policy at resume: what the model is told when it is refused. Written against survivors of
// reports/mutation/runtime.md (issue 17) at run-tools.ts :269 and :278-279, each applied by hand.
import { createMemoryJournal } from "@yoke/journal";
import { parseYokeEvent, type PolicyEffect } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { countingTool, crashingJournal, readAll, rejectionOf } from "../__fixtures__/harness-fixtures.js";
import { OTHER_WRITER_SCOPE, functionEngine, otherWritersJournal, payTool, policyRig } from "../__fixtures__/policy-fixtures.js";

const scope = OTHER_WRITER_SCOPE;

describe("an action another writer left unauthorized, refused by the policy at resume", () => {
  it.each([
    ["deny", false, "the policy denied this call to pay (rule the-rule): deny by the-rule. It was not run."],
    [
      "require_approval",
      false,
      "the policy denied this call to pay (rule the-rule): require_approval by the-rule. It was not run. (it needs an approval, and an action another writer proposed cannot be parked)",
    ],
    ["deny", true, "the policy denied this call to pay (rule the-rule): deny by the-rule. It was not run."],
  ] as const)("%s (validated: %s): failed, not dispatched, with the message the model reads", async (effect, validated, message) => {
    const pay = payTool();
    const journal = await otherWritersJournal(pay, validated);
    const engine = functionEngine(() => [effect as PolicyEffect, "the-rule"]);
    const { harness } = policyRig([say("done")], { policy: engine, tools: [pay.tool], journal });
    const result = await harness.resume(scope.runId);
    expect(result.outcome?.status).toBe("completed");
    expect(pay.calls).toEqual([]);
    expect(engine.tuples).toHaveLength(1);
    const failed = (await readAll(journal, scope.runId)).map(parseYokeEvent).filter((event) => event.type === "action.failed");
    expect(failed.map((event) => event.type === "action.failed" && [event.data.dispatched, event.data.result.error])).toEqual([
      [false, { code: "POLICY_DENIED", message }],
    ]);
  });
});

describe("an action this harness authorized before a crash", () => {
  // :269 (`state === "proposed" || state === "validated"` as true): an action already authorized and
  // executing was put to the policy again at resume, and refused by a policy that changed meanwhile.
  it("is recovered at resume without asking the policy again, even one that now denies", async () => {
    const store = countingTool("store", "idempotent");
    const journal = createMemoryJournal();
    const allowing = functionEngine(() => ["allow", "open"]);
    // Append 1 (the admission, executing) is written, then the process dies before dispatching.
    const crashed = policyRig([callTools([{ name: "store", args: { key: "k" } }]), say("never asked")], {
      policy: allowing,
      tools: [store.tool],
      journal: crashingJournal(journal, 1, "written"),
    });
    await rejectionOf(crashed.harness.start("t", { runId: "run_authorized" }));
    expect(allowing.tuples).toHaveLength(1);
    expect(store.calls).toEqual([]);
    const denying = functionEngine(() => ["deny", "closed"]);
    const { harness } = policyRig([say("done")], { policy: denying, tools: [store.tool], journal });
    const result = await harness.resume("run_authorized");
    expect(result.outcome?.status).toBe("completed");
    expect(denying.tuples).toEqual([]);
    expect(store.calls.map((call) => call.attempt)).toEqual([2]);
  });
});
