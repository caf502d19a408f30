import { describe, expect, it } from "vitest";
import { groundTruthPlanner } from "./delegation-planner.js";
import type { UserTask } from "./types.js";

const userTask: UserTask = {
  id: "user_task_x",
  prompt: "Pay both bills and tell me my balance.",
  groundTruth: [
    { function: "get_balance", args: {} },
    { function: "send_money", args: { recipient: "A", amount: 1 } },
    { function: "send_money", args: { recipient: "B", amount: 2 } },
    { function: "schedule_transaction", args: { recipient: "C" } },
  ],
  utilityCheck: { kind: "true" },
  injectionVectorsSeen: [],
};

const tools = [
  { name: "get_balance", sideEffect: "none" },
  { name: "send_money", sideEffect: "irreversible" },
  { name: "schedule_transaction", sideEffect: "reversible" },
  { name: "update_password", sideEffect: "irreversible" },
];

describe("the ground-truth planner", () => {
  it("grants each side-effecting tool the task's ground truth calls, as many times, and nothing of their arguments", () => {
    const planned = groundTruthPlanner(userTask)({ tools });
    expect(planned).toEqual({
      grants: [
        { grantId: "send_money", tools: ["send_money"], max: 2 },
        { grantId: "schedule_transaction", tools: ["schedule_transaction"], max: 1 },
      ],
    });
    expect(JSON.stringify(planned)).not.toMatch(/"A"|"B"|"C"|recipient|amount/);
  });

  it("grants nothing for a tool the declarations do not offer, and nothing for a task that only reads", () => {
    expect(groundTruthPlanner(userTask)({ tools: [{ name: "get_balance", sideEffect: "none" }] })).toEqual({ grants: [] });
  });
});
