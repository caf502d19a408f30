import type { YokeEvent } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { decisionFactsOf } from "./decision-facts.js";
import { ActionFolder } from "./inspect-actions.js";

const POLICY = { effect: "require_approval", ruleId: "influence-default", policyRevision: "c".repeat(64), reason: "…" };
const UNTRUSTED = { integrity: "untrusted", loweredBy: [{ itemId: "call_1", label: "tool_output", toolName: "read_inbox" }] };
const DELEGATION = { within: true, grantId: "grant_1", used: 1, max: 2 };

function requested(): YokeEvent {
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
      policy: POLICY,
      provenance: [],
      influence: UNTRUSTED,
      binding: {
        actionDigest: "a".repeat(64),
        toolRevision: "b".repeat(64),
        resourceRevision: null,
        policyRevision: "c".repeat(64),
        tenantId: "t",
        principalId: "p",
        expiresAt: 10,
      },
    },
  } as unknown as YokeEvent;
}

function authorized(data: Record<string, unknown>): YokeEvent {
  return {
    seq: 9,
    at: 0,
    type: "action.authorized",
    data: { actionId: "action_1", decision: "allow", rule: "approved", approvalId: "approval_1", ...data },
  } as unknown as YokeEvent;
}

describe("decision facts", () => {
  it("are the influence, delegation and carries members as written, in that order, whatever their shape", () => {
    expect(decisionFactsOf({ carries: "anything", rule: "r", delegation: [1, 2], influence: null })).toEqual([
      { name: "influence", value: null },
      { name: "delegation", value: [1, 2] },
      { name: "carries", value: "anything" },
    ]);
    expect(decisionFactsOf({ rule: "r" })).toEqual([]);
    for (const data of [null, "text", 3, [{ influence: UNTRUSTED }]]) expect(decisionFactsOf(data)).toEqual([]);
  });

  it("a later decision replaces the members it journals and keeps the others", () => {
    const folder = new ActionFolder([]);
    const parked = requested();
    folder.apply(parked, { ...parked.data, delegation: DELEGATION });
    expect(folder.views()[0]?.decisionFacts).toEqual([
      { name: "influence", value: UNTRUSTED },
      { name: "delegation", value: DELEGATION },
    ]);
    const carries = { classification: "personal" };
    const approved = authorized({ influence: { integrity: "trusted", loweredBy: [] } });
    folder.apply(approved, { ...approved.data, carries });
    expect(folder.views()[0]?.decisionFacts).toEqual([
      { name: "influence", value: { integrity: "trusted", loweredBy: [] } },
      { name: "delegation", value: DELEGATION },
      { name: "carries", value: carries },
    ]);
  });

  it("are read from the parsed data when no stored data is given", () => {
    const folder = new ActionFolder([]);
    folder.apply(requested());
    expect(folder.views()[0]?.decisionFacts).toEqual([{ name: "influence", value: UNTRUSTED }]);
  });
});
