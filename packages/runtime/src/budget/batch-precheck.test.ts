// A response's calls are admitted whole or not at all against the budget: the pre-check counts
// every well-formed call of the batch, including one the policy parks for approval, which the
// reservation made at dispatch does not see (it reserves only what runs now).
import { parseYokeEvent, type YokeEvent } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { readAll } from "../__fixtures__/harness-fixtures.js";
import { functionEngine, noteTool, payTool, policyRig } from "../__fixtures__/policy-fixtures.js";

const approvalForPay = () => functionEngine((tuple) => (tuple.tool.name === "pay" ? ["require_approval", "pay-needs-a-person"] : ["allow", "notes"]));

describe("the budget's batch pre-check", () => {
  it.for([
    ["note first", ["note", "pay"]],
    ["pay first", ["pay", "note"]],
  ] as const)("a batch needing 2 tool operations with room for 1 (%s): no call of it runs, nothing is parked", async ([, order]) => {
    const note = noteTool();
    const pay = payTool();
    const calls = order.map((name, index) =>
      name === "note"
        ? { name, args: { text: "hello" }, id: `call_${index}` }
        : { name, args: { to: "GB29NWBK60161331926819", amount: 5 }, id: `call_${index}` },
    );
    const { harness, journal } = policyRig([callTools(calls), say("done")], {
      tools: [note.tool, pay.tool],
      policy: approvalForPay(),
      budget: { limits: { tool_ops: 1 } },
    });
    const { runId, outcome } = await harness.start("note and pay");
    expect([note.calls, pay.calls]).toEqual([[], []]);
    expect(outcome).toMatchObject({ status: "budget_exhausted", budget: "tool_ops", limit: 1 });
    const events = (await readAll(journal, runId)).map(parseYokeEvent);
    const count = (type: YokeEvent["type"]) => events.filter((event) => event.type === type).length;
    expect([count("action.admitted"), count("action.approval_requested"), count("action.executing")]).toEqual([0, 0, 0]);
  });

  it("with room for both, the allowed call runs and the other waits for a person", async () => {
    const note = noteTool();
    const pay = payTool();
    const { harness } = policyRig(
      [
        callTools([
          { name: "note", args: { text: "hello" }, id: "call_0" },
          { name: "pay", args: { to: "GB29NWBK60161331926819", amount: 5 }, id: "call_1" },
        ]),
        say("done"),
      ],
      { tools: [note.tool, pay.tool], policy: approvalForPay(), budget: { limits: { tool_ops: 2 } } },
    );
    const result = await harness.start("note and pay");
    expect(note.calls).toEqual(["hello"]);
    expect(pay.calls).toEqual([]);
    expect(result.waiting?.approvals).toHaveLength(1);
  });
});
