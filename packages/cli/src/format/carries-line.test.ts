import type { YokeEvent } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { ActionFolder } from "../inspect/inspect-actions.js";
import { carriesLine } from "./carries-line.js";

function requested(carries?: unknown): YokeEvent {
  return {
    seq: 7,
    at: 0,
    type: "action.approval_requested",
    data: {
      turnId: "turn_1",
      toolCallId: "call_2",
      toolName: "send_mail",
      actionId: "action_1",
      input: { body: "+44 20 7946 0958" },
      sideEffect: "irreversible",
      approvalId: "approval_1",
      policy: { effect: "require_approval", ruleId: "data-flow-default", policyRevision: "c".repeat(64), reason: "…" },
      provenance: [],
      ...(carries === undefined ? {} : { carries }),
      binding: {
        actionDigest: "a".repeat(64),
        toolRevision: "b".repeat(64),
        resourceRevision: null,
        policyRevision: "c".repeat(64),
        tenantId: "acme",
        principalId: "user_1",
        expiresAt: 10,
      },
    },
  } as unknown as YokeEvent;
}

describe("yoke show: what a decided call carries", () => {
  it("one line: the classification, where it came from, and whether it left the account", () => {
    expect(carriesLine({ classification: "confidential", fromToolOutput: true, fromUntrusted: true, outward: true })).toBe(
      "carries: confidential data from tool outputs, some only in third-party content, out of the account",
    );
    expect(carriesLine({ classification: "internal", fromToolOutput: false, fromUntrusted: false, outward: false })).toBe(
      "carries: internal data from no tool output, kept in the account",
    );
  });

  it("the action view carries it as journaled with the decision; a tool without payloads, or an older journal, shows none", () => {
    const carries = { classification: "restricted", fromToolOutput: true, fromUntrusted: false, outward: true };
    const folder = new ActionFolder([]);
    folder.apply(requested(carries));
    expect(folder.views()[0]?.carries).toEqual(carries);
    const older = new ActionFolder([]);
    older.apply(requested());
    expect(older.views()[0]).not.toHaveProperty("carries");
  });
});
