import { actionDigestOf } from "@yoke/policy";
import { parseYokeEvent, type Message, type ToolResultPart, type YokeEvent } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { TENANT, echoTool, readAll, rig } from "./__fixtures__/harness-fixtures.js";
import {
  ATTACKER_IBAN,
  FRIEND_IBAN,
  POLICY_V1,
  OTHER_WRITER_SCOPE,
  functionEngine,
  inboxTool,
  otherWritersJournal,
  payTool,
  policyRig,
} from "./__fixtures__/policy-fixtures.js";
import type { JournalV1 } from "@yoke/protocol";

async function events(journal: JournalV1, runId: string): Promise<YokeEvent[]> {
  return (await readAll(journal, runId)).map(parseYokeEvent);
}

function lastToolResults(messages: readonly Message[]): ToolResultPart[] {
  const tool = messages.filter((message) => message.role === "tool").at(-1);
  return tool?.role === "tool" ? tool.content : [];
}

describe("policy in admission", () => {
  it("without a policy, admits by rule default and journals no principal (as before policy)", async () => {
    const { harness, journal } = rig([callTools([{ name: "echo", args: { text: "hi" } }]), say("done")]);
    const { runId } = await harness.start("t");
    const all = await events(journal, runId);
    const started = all.find((event) => event.type === "run.started");
    expect(started?.type === "run.started" && started.data.principal).toBe(undefined);
    const admitted = all.find((event) => event.type === "action.admitted");
    expect(admitted?.type === "action.admitted" && admitted.data).toMatchObject({ decision: "allow", rule: "default" });
    expect(admitted?.data).not.toHaveProperty("policy");
  });

  it("decides on the whole tuple and journals the decision and the provenance with action.admitted", async () => {
    const engine = functionEngine(() => ["allow", "payments-to-friends"]);
    const pay = payTool();
    const { harness, journal } = policyRig(
      [
        callTools([
          { name: "pay", args: { to: FRIEND_IBAN, amount: 10 } },
          { name: "echo", args: { text: "x" } },
        ]),
        say("done"),
      ],
      {
        policy: engine,
        tools: [pay.tool, echoTool],
        principal: { id: "user_42", scopes: ["payments"] },
      },
    );
    const result = await harness.start(`Send 10 to my friend ${FRIEND_IBAN}`);
    expect(result.outcome?.status).toBe("completed");
    expect(pay.calls).toHaveLength(1);
    const [tuple, echoTuple] = engine.tuples;
    const revision = result.state.pinnedTools.get("pay")!.digest;
    expect(tuple).toMatchObject({
      tenantId: TENANT,
      principal: { id: "user_42", authenticated: true },
      task: { runId: result.runId, scopes: ["payments"] },
      tool: { name: "pay", revision, owner: "payments-team" },
      verb: "transfer",
      resource: "ledger:main",
      baseRevision: "ledger@1",
      dataClassification: "confidential",
      sideEffect: "irreversible",
      provenance: [{ path: "/to", role: "recipient", value: FRIEND_IBAN, origin: "trusted", sources: [{ itemId: "task", label: "user", trusted: true }] }],
    });
    expect(tuple?.argumentsDigest).toMatch(/^[0-9a-f]{64}$/);
    // A tool that declares no facts: verb = its name, resource = tool:<name>, classification internal, no owner.
    expect(echoTuple).toMatchObject({ verb: "echo", resource: "tool:echo", dataClassification: "internal", tool: { name: "echo", owner: null } });
    const all = await events(journal, result.runId);
    const started = all.find((event) => event.type === "run.started");
    expect(started?.type === "run.started" && started.data.principal).toEqual({ id: "user_42", authenticated: true, scopes: ["payments"] });
    const admitted = all.find((event) => event.type === "action.admitted" && event.data.toolName === "pay");
    expect(admitted?.data).toMatchObject({
      decision: "allow",
      rule: "payments-to-friends",
      policy: { effect: "allow", ruleId: "payments-to-friends", policyRevision: POLICY_V1 },
      provenance: tuple?.provenance,
    });
  });

  it("denies a recipient that only untrusted tool output named: tool.rejected POLICY_DENIED, the model is told the rule and reason, the run goes on", async () => {
    // The provenance rule, as a suite-wide policy would write it: no recipient may come only from untrusted content.
    const engine = functionEngine((tuple) =>
      tuple.provenance.some((entry) => entry.role === "recipient" && entry.origin !== "trusted")
        ? ["deny", "recipients-from-trusted-sources", "the recipient appears only in untrusted content"]
        : ["allow", "anything-else"],
    );
    const pay = payTool();
    const { harness, model, journal } = policyRig(
      [
        callTools([{ name: "read_inbox", args: {} }]),
        // The obedient model carries out the injected instruction, and the user's own payment.
        callTools([
          { name: "pay", args: { to: ATTACKER_IBAN, amount: 100 } },
          { name: "pay", args: { to: FRIEND_IBAN, amount: 10 } },
        ]),
        (request) => {
          const [denied, allowed] = lastToolResults(request.messages);
          expect(denied?.result.error?.code).toBe("POLICY_DENIED");
          // (The compiler wraps tool output in a data envelope; the message is inside it.)
          expect(denied?.result.error?.message).toContain(
            "the policy denied this call to pay (rule recipients-from-trusted-sources): the recipient appears only in untrusted content. It was not run.",
          );
          expect(allowed?.result.status).toBe("ok");
          return say("done");
        },
      ],
      { policy: engine, tools: [pay.tool, inboxTool] },
    );
    const result = await harness.start(`Pay my friend ${FRIEND_IBAN} 10 and read my inbox`);
    model.assertConsumed();
    expect(result.outcome?.status).toBe("completed");
    expect(pay.calls.map((call) => call.to)).toEqual([FRIEND_IBAN]);
    const rejected = (await events(journal, result.runId)).find((event) => event.type === "tool.rejected");
    expect(rejected?.type === "tool.rejected" && rejected.data).toMatchObject({
      code: "POLICY_DENIED",
      policy: { effect: "deny", ruleId: "recipients-from-trusted-sources" },
      provenance: [
        {
          path: "/to",
          role: "recipient",
          value: ATTACKER_IBAN,
          origin: "untrusted_only",
          sources: [{ itemId: "call_1", label: "tool_output", toolName: "read_inbox" }],
        },
      ],
    });
  });

  it("refuses a call whose tool cannot compute its policy facts (deny, rule tool-policy-facts-failed), never asking the engine", async () => {
    const engine = functionEngine(() => ["allow", "all"]);
    const broken = payTool();
    const tool = {
      ...broken.tool,
      policy: () => {
        throw new Error("backend down");
      },
    };
    const { harness } = policyRig([callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 1 } }]), say("done")], { policy: engine, tools: [tool] });
    const result = await harness.start(`pay ${FRIEND_IBAN}`);
    expect(broken.calls).toEqual([]);
    expect(engine.tuples).toEqual([]);
    expect(lastToolResults(result.state.messages)[0]?.result.error?.message).toMatch(/rule tool-policy-facts-failed.*backend down/);
  });

  it("binds an approval request to the action digest the policy package computes", async () => {
    const engine = functionEngine(() => ["require_approval", "payments-need-a-person"]);
    const pay = payTool();
    const { harness } = policyRig([callTools([{ name: "pay", args: { amount: 10, to: FRIEND_IBAN } }])], { policy: engine, tools: [pay.tool] });
    const result = await harness.start(`pay ${FRIEND_IBAN}`);
    const [approval] = result.waiting?.approvals ?? [];
    const revision = result.state.pinnedTools.get("pay")!.digest;
    expect(approval?.binding).toEqual({
      actionDigest: actionDigestOf(revision, { to: FRIEND_IBAN, amount: 10 }),
      toolRevision: revision,
      resourceRevision: "ledger@1",
      policyRevision: POLICY_V1,
      tenantId: TENANT,
      principalId: TENANT,
      expiresAt: 1_000 + 3_600_000,
    });
  });

  it("refuses a malformed policy, principal or approval TTL with CONFIG_INVALID", () => {
    expect(() => policyRig([], { policy: { specificationVersion: "v0" } as never })).toThrow(/policy must implement PolicyEngineV1/);
    expect(() => policyRig([], { policy: functionEngine(() => ["allow", "x"]), principal: { id: "" } })).toThrow(/principal.id/);
    expect(() => policyRig([], { policy: functionEngine(() => ["allow", "x"]), approvalTtlMs: 0 })).toThrow(/approvalTtlMs/);
  });

  it.each([
    ["deny", "denied", 0],
    ["require_approval", "denied (no parking for it)", 0],
    ["allow", "authorized by the rule", 1],
  ] as const)("decides at resume an action another writer proposed and never authorized: %s → %s", async (effect, _label, runs) => {
    const pay = payTool();
    const journal = await otherWritersJournal(pay);
    const scope = OTHER_WRITER_SCOPE;
    const engine = functionEngine(() => [effect, "the-rule"]);
    const { harness } = policyRig([say("done")], { policy: engine, tools: [pay.tool], journal });
    const result = await harness.resume(scope.runId);
    expect(result.outcome?.status).toBe("completed");
    expect(pay.calls).toHaveLength(runs);
    const all = await events(journal, scope.runId);
    if (runs === 1) {
      expect(all.find((event) => event.type === "action.authorized")?.data).toMatchObject({ rule: "the-rule", policy: { effect: "allow" } });
    } else {
      expect(all.find((event) => event.type === "action.failed")?.data).toMatchObject({ dispatched: false, result: { error: { code: "POLICY_DENIED" } } });
    }
  });
});
