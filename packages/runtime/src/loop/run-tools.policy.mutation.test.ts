// run-tools.ts, an action another writer proposed (or validated) and never authorized, decided by
// the policy at resume: what the model is told when it is refused. Written against survivors of
// reports/mutation/runtime.md (issue 17) at run-tools.ts :269 and :278-279, each applied by hand.
import { createMemoryJournal } from "@yoke/journal";
import { parseYokeEvent, type PolicyEffect } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { countingTool, crashingJournal, readAll, rejectionOf } from "../__fixtures__/harness-fixtures.js";
import { OTHER_WRITER_SCOPE, POLICY_V2, functionEngine, otherWritersJournal, payTool, policyRig } from "../__fixtures__/policy-fixtures.js";

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
  // executing was put to the policy as if another writer had proposed it (POLICY_DENIED, never
  // reconciled). Issue 33 changed what is right here: the resume reconciles it, and its next attempt
  // is decided by the policy in force now (asked once), so a policy that now denies refuses attempt 2
  // with POLICY_CHANGED (the test before issue 33 asserted the policy was not asked at all).
  it.each([
    ["deny", []],
    ["allow", [2]],
  ] as const)("is reconciled at resume, and its next attempt is put to the policy now (%s)", async (effect, attempts) => {
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
    const now = functionEngine(() => [effect, effect === "deny" ? "closed" : "still-open"], POLICY_V2);
    const { harness } = policyRig([say("done")], { policy: now, tools: [store.tool], journal });
    const result = await harness.resume("run_authorized");
    expect(result.outcome?.status).toBe("completed");
    expect(now.tuples).toHaveLength(1);
    expect(store.calls.map((call) => call.attempt)).toEqual(attempts);
    const added = (await readAll(journal, "run_authorized")).map(parseYokeEvent).filter((event) => event.type.startsWith("action."));
    const types = added.map((event) => event.type);
    expect(types.slice(0, 4)).toEqual(["action.admitted", "action.uncertain", "action.reconciled", "action.leased"]);
    const failed = added.find((event) => event.type === "action.failed");
    if (effect === "deny") {
      expect(failed?.data).toMatchObject({
        dispatched: false,
        result: { error: { code: "POLICY_CHANGED" } },
        previousPolicy: { ruleId: "open" },
        policy: { ruleId: "closed" },
      });
    } else {
      expect(failed).toBe(undefined);
      expect(added[3]?.data).toMatchObject({ attempt: 2, rule: "still-open", policy: { effect: "allow", policyRevision: POLICY_V2 } });
    }
  });
});
