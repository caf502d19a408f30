import type { YokeEvent } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { ActionFolder } from "../inspect/inspect-actions.js";
import { delegationLine } from "./show-text.js";

const POLICY = { effect: "allow", ruleId: "pay-named", policyRevision: "c".repeat(64), reason: "…" };

function admitted(delegation?: unknown): YokeEvent {
  return {
    seq: 7,
    at: 0,
    type: "action.admitted",
    data: {
      turnId: "turn_1",
      toolCallId: "call_2",
      toolName: "pay",
      actionId: "action_1",
      input: { to: "me" },
      sideEffect: "irreversible",
      decision: "allow",
      rule: "pay-named",
      policy: POLICY,
      provenance: [],
      ...(delegation === undefined ? {} : { delegation }),
      attemptId: "attempt_1",
      attempt: 1,
      deadlineAt: 10,
    },
  } as unknown as YokeEvent;
}

describe("yoke show: a decision's delegation", () => {
  it("one line: within a grant with its counts, outside a spent grant, or outside every grant", () => {
    expect(delegationLine({ within: true, grantId: "rent", used: 0, max: 2 })).toBe("delegation: within grant rent (0 of 2 used before this call)");
    expect(delegationLine({ within: false, grantId: "rent", used: 2, max: 2 })).toBe("delegation: outside, grant rent is spent (2 of 2 used before this call)");
    expect(delegationLine({ within: false, used: 0, max: 0 })).toBe("delegation: outside, no grant of the run's delegation covers this call");
  });

  it("the action view carries the standing journaled with its decision; a run without a delegation has none", () => {
    const delegation = { within: true, grantId: "rent", used: 0, max: 1 };
    const folder = new ActionFolder([]);
    folder.apply(admitted(delegation));
    expect(folder.views()[0]?.delegation).toEqual(delegation);
    const plain = new ActionFolder([]);
    plain.apply(admitted());
    expect(plain.views()[0]).not.toHaveProperty("delegation");
  });
});
