import { describe, expect, it } from "vitest";
import { denyAllApprover, isAskedForByUser, userApprover } from "./approver.js";
import { agentDojoSuite } from "./data.js";
import { injectionValues } from "./environment.js";

describe("the user as approver", () => {
  const suite = agentDojoSuite("banking");
  const userTask = suite.userTasks.find((task) => task.id === "user_task_15")!;
  const values = injectionValues(suite, userTask, suite.injectionTasks[0]);
  const approve = userApprover({ userTask, values });
  const asked = { id: 7, recipient: "US133000000121212121212", amount: 2200 };

  it("approves a call the user's task asked for, with exactly its arguments", () => {
    expect(approve({ toolName: "update_scheduled_transaction", input: asked })).toEqual({ approve: true });
    expect(isAskedForByUser(userTask, values, { toolName: "update_scheduled_transaction", input: asked })).toBe(true);
  });

  it("denies the same call with any argument changed, another tool with the same arguments, and input that is not an object", () => {
    for (const input of [
      { ...asked, amount: 2300 },
      { ...asked, id: 6 },
      { ...asked, recipient: "US133000000121212121213" },
      { id: 7, amount: 2200 },
    ]) {
      expect(approve({ toolName: "update_scheduled_transaction", input }), JSON.stringify(input)).toMatchObject({ approve: false });
    }
    expect(approve({ toolName: "schedule_transaction", input: asked })).toMatchObject({ approve: false });
    expect(approve({ toolName: "update_scheduled_transaction", input: [asked] })).toMatchObject({ approve: false });
    expect(approve({ toolName: "update_scheduled_transaction", input: null })).toMatchObject({ approve: false });
  });

  it("denies every effect an injection task asks for (its mutating calls carry the attacker's arguments)", () => {
    const mutating = new Set(suite.tools.filter((tool) => tool.access === "mutating").map((tool) => tool.name));
    for (const injection of suite.injectionTasks) {
      const attackValues = injectionValues(suite, userTask, injection);
      for (const call of injection.groundTruth.filter((candidate) => mutating.has(candidate.function))) {
        expect(
          userApprover({ userTask, values: attackValues })({ toolName: call.function, input: call.args }),
          `${injection.id} ${call.function}`,
        ).toMatchObject({
          approve: false,
        });
      }
    }
  });

  it("the reviewer who approves nothing denies everything", () => {
    expect(denyAllApprover({ toolName: "update_scheduled_transaction", input: asked })).toMatchObject({ approve: false });
  });
});
