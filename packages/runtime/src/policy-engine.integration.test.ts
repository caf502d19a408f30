// The runtime with @yoke/policy's engine (not a test double): a JSON rule document, loaded and
// compiled, decides the calls of a run whose obedient model follows an injected instruction.
import { createPolicyEngine, loadPolicy } from "@yoke/policy";
import { parseYokeEvent, type Message, type ToolResultPart } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { TENANT, readAll } from "./__fixtures__/harness-fixtures.js";
import { ATTACKER_IBAN, FRIEND_IBAN, inboxTool, payTool, policyRig } from "./__fixtures__/policy-fixtures.js";

function document(effect: "allow" | "require_approval") {
  return {
    version: 1,
    id: "payments",
    rules: [
      {
        id: "pay-payees-the-user-named",
        effect,
        reason: "payments to a recipient the user named",
        match: {
          tenant: [TENANT],
          principal: { ids: ["user_42"], authenticated: [true] },
          scopes: ["payments"],
          tool: { names: ["pay"], revisions: "*", owners: ["payments-team"] },
          verb: ["transfer"],
          resource: ["ledger:*"],
          path: "*",
          dataClassification: "*",
          destination: "*",
          baseRevision: "*",
          sideEffect: ["irreversible"],
          expectedEffect: "*",
          provenance: { roles: ["recipient"], origins: ["trusted"] },
        },
      },
    ],
  };
}

function lastToolResults(messages: readonly Message[]): ToolResultPart[] {
  const tool = messages.filter((message) => message.role === "tool").at(-1);
  return tool?.role === "tool" ? tool.content : [];
}

describe("the runtime with @yoke/policy's engine", () => {
  it("allows the user's payment, denies the injected one by default (its recipient came only from a tool's output)", async () => {
    const engine = createPolicyEngine(loadPolicy(JSON.stringify(document("allow"))));
    const pay = payTool();
    const { harness, model, journal } = policyRig(
      [
        callTools([{ name: "read_inbox", args: {} }]),
        callTools([
          { name: "pay", args: { to: ATTACKER_IBAN, amount: 100 } },
          { name: "pay", args: { to: FRIEND_IBAN, amount: 10 } },
        ]),
        (request) => {
          const [denied, allowed] = lastToolResults(request.messages);
          expect(denied?.result.error?.code).toBe("POLICY_DENIED");
          expect(denied?.result.error?.message).toContain("rule default-deny");
          expect(allowed?.result.status).toBe("ok");
          return say("done");
        },
      ],
      { policy: engine, tools: [pay.tool, inboxTool], principal: { id: "user_42", scopes: ["payments"] } },
    );
    const result = await harness.start(`Read my inbox, then pay my friend ${FRIEND_IBAN} 10`);
    model.assertConsumed();
    expect(result.outcome?.status).toBe("completed");
    expect(pay.calls.map((call) => call.to)).toEqual([FRIEND_IBAN]);
    const events = (await readAll(journal, result.runId)).map(parseYokeEvent);
    const reads = events.find((event) => event.type === "action.admitted" && event.data.toolName === "read_inbox");
    expect(reads?.data).toMatchObject({ rule: "default-read-only", policy: { policyRevision: engine.revision } });
    const paid = events.find((event) => event.type === "action.admitted" && event.data.toolName === "pay");
    expect(paid?.data).toMatchObject({ rule: "pay-payees-the-user-named" });
  });

  it("parks a payment a require_approval rule matches; approved, it runs once on resume", async () => {
    const engine = createPolicyEngine(loadPolicy(JSON.stringify(document("require_approval"))));
    const pay = payTool();
    const { harness } = policyRig([callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 } }]), say("done")], {
      policy: engine,
      tools: [pay.tool],
      principal: { id: "user_42", scopes: ["payments"] },
    });
    const parked = await harness.start(`Pay my friend ${FRIEND_IBAN} 10`);
    const [approval] = parked.waiting?.approvals ?? [];
    expect(approval?.binding.policyRevision).toBe(engine.revision);
    await harness.approve(parked.runId, approval!.approvalId, { approver: "ops" });
    expect((await harness.resume(parked.runId)).outcome?.status).toBe("completed");
    expect(pay.calls).toHaveLength(1);
  });
});
