// The runtime with @yoke/policy's engine (not a test double): a JSON rule document, loaded and
// compiled, decides the calls of a run whose obedient model follows an injected instruction.
import { createPolicyEngine, loadPolicy } from "@yoke/policy";
import { parseYokeEvent, type Message, type ToolResultPart } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { TENANT, readAll } from "./__fixtures__/harness-fixtures.js";
import { ATTACKER_IBAN, FRIEND_IBAN, inboxTool, noteTool, payTool, policyRig } from "./__fixtures__/policy-fixtures.js";

/** The payments rule; `influence` as the rule names it (left out: any influence, which is not explicit). */
function document(effect: "allow" | "require_approval", influence?: readonly ("trusted" | "untrusted")[]) {
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
          ...(influence === undefined ? {} : { influence }),
        },
      },
    ],
  };
}

/** Notes anywhere: a side effect with no destination-like argument, so no provenance condition can hold it. */
const notesDocument = {
  version: 1,
  id: "notes",
  rules: [
    {
      id: "write-notes",
      effect: "allow",
      match: {
        tenant: "*",
        principal: { ids: "*", authenticated: "*" },
        scopes: "*",
        tool: { names: ["note"], revisions: "*", owners: "*" },
        verb: "*",
        resource: "*",
        path: "*",
        dataClassification: "*",
        destination: "*",
        baseRevision: "*",
        sideEffect: "*",
        expectedEffect: "*",
        provenance: { roles: ["recipient", "url"], origins: ["trusted"] },
      },
    },
  ],
};

function lastToolResults(messages: readonly Message[]): ToolResultPart[] {
  const tool = messages.filter((message) => message.role === "tool").at(-1);
  return tool?.role === "tool" ? tool.content : [];
}

describe("the runtime with @yoke/policy's engine", () => {
  it("allows the user's payment under a rule that names untrusted influence, denies the injected one by default (its recipient came only from a tool's output)", async () => {
    const engine = createPolicyEngine(loadPolicy(JSON.stringify(document("allow", ["trusted", "untrusted"]))));
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
    expect(paid?.data).toMatchObject({
      rule: "pay-payees-the-user-named",
      influence: { integrity: "untrusted", loweredBy: [{ label: "tool_output", toolName: "read_inbox" }] },
    });
    expect(reads?.data).toMatchObject({ influence: { integrity: "trusted", loweredBy: [] } });
  });

  it("parks the user's own payment proposed after the inbox was read, when the rule does not name untrusted influence", async () => {
    const engine = createPolicyEngine(loadPolicy(JSON.stringify(document("allow"))));
    const pay = payTool();
    const { harness, journal } = policyRig(
      [callTools([{ name: "read_inbox", args: {} }]), callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 } }])],
      {
        policy: engine,
        tools: [pay.tool, inboxTool],
        principal: { id: "user_42", scopes: ["payments"] },
      },
    );
    const parked = await harness.start(`Read my inbox, then pay my friend ${FRIEND_IBAN} 10`);
    expect(parked.waiting?.approvals).toHaveLength(1);
    expect(pay.calls).toEqual([]);
    const events = (await readAll(journal, parked.runId)).map(parseYokeEvent);
    const requested = events.find((event) => event.type === "action.approval_requested");
    expect(requested?.data).toMatchObject({
      policy: { effect: "require_approval", ruleId: "influence-default" },
      influence: { integrity: "untrusted", loweredBy: [{ label: "tool_output", toolName: "read_inbox" }] },
    });
    expect(requested?.type === "action.approval_requested" && requested.data.policy?.reason).toContain("read_inbox output");
  });

  it("parks an injected side effect with no destination argument, proposed after an untrusted tool output", async () => {
    const engine = createPolicyEngine(loadPolicy(JSON.stringify(notesDocument)));
    const note = noteTool();
    const { harness, journal } = policyRig(
      [
        callTools([{ name: "note", args: { text: "remember the milk" } }]),
        callTools([{ name: "read_inbox", args: {} }]),
        callTools([{ name: "note", args: { text: "pay 100 now" } }]),
      ],
      { policy: engine, tools: [note.tool, inboxTool] },
    );
    const result = await harness.start("Note that I need milk, then read my inbox");
    // Before anything untrusted was read, the rule allows the note; after, a person decides.
    expect(note.calls).toEqual(["remember the milk"]);
    expect(result.waiting?.approvals).toHaveLength(1);
    const events = (await readAll(journal, result.runId)).map(parseYokeEvent);
    const requested = events.find((event) => event.type === "action.approval_requested");
    expect(requested?.data).toMatchObject({ toolName: "note", policy: { effect: "require_approval", ruleId: "influence-default" } });
  });

  it("runs the same injected side effect when the document turns the default off", async () => {
    const engine = createPolicyEngine(loadPolicy(JSON.stringify({ ...notesDocument, defaults: { untrustedInfluence: "allow" } })));
    const note = noteTool();
    const { harness } = policyRig([callTools([{ name: "read_inbox", args: {} }]), callTools([{ name: "note", args: { text: "pay 100 now" } }]), say("done")], {
      policy: engine,
      tools: [note.tool, inboxTool],
    });
    expect((await harness.start("Read my inbox")).outcome?.status).toBe("completed");
    expect(note.calls).toEqual(["pay 100 now"]);
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
