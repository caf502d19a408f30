import type { YokeEvent } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { ActionFolder } from "../inspect/inspect-actions.js";
import { influenceLine } from "./show-text.js";

const BINDING = {
  actionDigest: "a".repeat(64),
  toolRevision: "b".repeat(64),
  resourceRevision: null,
  policyRevision: "c".repeat(64),
  tenantId: "acme",
  principalId: "user_1",
  expiresAt: 10,
};

function requested(influence?: unknown): YokeEvent {
  return {
    seq: 7,
    at: 0,
    type: "action.approval_requested",
    data: {
      turnId: "turn_1",
      toolCallId: "call_2",
      toolName: "note",
      actionId: "action_1",
      input: { text: "pay" },
      sideEffect: "idempotent",
      approvalId: "approval_1",
      policy: { effect: "require_approval", ruleId: "influence-default", policyRevision: "c".repeat(64), reason: "…" },
      provenance: [],
      ...(influence === undefined ? {} : { influence }),
      binding: BINDING,
    },
  } as unknown as YokeEvent;
}

describe("yoke show: a decision's influence", () => {
  it("one line: trusted, or untrusted with the items that lowered it and how many more", () => {
    expect(influenceLine({ integrity: "trusted", loweredBy: [] })).toBe("influence: trusted (only the run's principals and declared records were read)");
    expect(
      influenceLine({
        integrity: "untrusted",
        loweredBy: [
          { itemId: "call_1", label: "tool_output", toolName: "read_inbox" },
          { itemId: "input:9", label: "runtime" },
        ],
        more: 3,
      }),
    ).toBe("influence: untrusted, lowered by call_1 (read_inbox output), input:9 (runtime) and 3 more");
  });

  it("the action view carries the influence journaled with its decision; a journal from before influence has none", () => {
    const influence = { integrity: "untrusted", loweredBy: [{ itemId: "call_1", label: "tool_output", toolName: "read_inbox" }] };
    const folder = new ActionFolder([]);
    folder.apply(requested(influence));
    expect(folder.views()[0]?.influence).toEqual(influence);
    const older = new ActionFolder([]);
    older.apply(requested());
    expect(older.views()[0]?.influence).toBeUndefined();
  });
});
