// Scenarios of admission: the policy's allow, deny and ask (an approval granted, denied and
// expired), and the budget's reservations, settlements and refusal.
import type { PolicyEffect, PolicyEngineV1, PolicyTuple, PricingTable } from "@yoke/protocol";
import { defineTool } from "@yoke/runtime";
import { callTools, say } from "@yoke/testkit";
import { z } from "zod";
import { RUN, START_AT } from "./corpus-kit.js";
import type { DriveContext, Scenario } from "./scenario.js";
import { echoTool, noted, startWith } from "./scenario-tools.js";

const POLICY_REVISION = "1".repeat(64);
export const FRIEND_IBAN = "GB29NWBK60161331926819";
const ATTACKER_IBAN = "US133000000121212121212";
const HOUR = 3_600_000;
const WEEK = 7 * 24 * HOUR;

/** A stateless policy: a payment to the attacker is denied, any other payment needs a person, everything else is allowed. */
export function paymentsPolicy(): PolicyEngineV1 {
  const decide = (tuple: PolicyTuple): [PolicyEffect, string] => {
    if (tuple.tool.name !== "pay") return ["allow", "notes-are-free"];
    return JSON.stringify(tuple).includes(ATTACKER_IBAN) ? ["deny", "no-attacker"] : ["require_approval", "payments-need-a-person"];
  };
  return {
    specificationVersion: "v1",
    revision: POLICY_REVISION,
    decide(tuple) {
      const [effect, ruleId] = decide(tuple);
      return { effect, ruleId, policyRevision: POLICY_REVISION, reason: `${effect} by ${ruleId}` };
    },
  };
}

export const payTool = defineTool({
  name: "pay",
  description: "Send money to an IBAN.",
  input: z.object({ to: z.string(), amount: z.number() }),
  sideEffect: "irreversible",
  owner: "payments-team",
  dataClassification: "confidential",
  access: () => ({ reads: [], writes: ["ledger"] }),
  policy: () => ({ verb: "transfer", resource: "ledger:main", baseRevision: "ledger@1", destinations: [{ pointer: "/to", role: "recipient" }] }),
  execute: async ({ to, amount }) => `sent ${amount} to ${to}`,
});

const noteTool = defineTool({
  name: "note",
  description: "Write a note.",
  input: z.object({ text: z.string() }),
  sideEffect: "idempotent",
  access: () => ({ reads: [], writes: ["notes"] }),
  execute: async ({ text }) => `noted: ${text}`,
});

const policyOptions = () => ({ tools: [payTool, noteTool], policy: paymentsPolicy(), principal: { id: "user_42", scopes: ["payments"] } });

const payFriend = () =>
  callTools([
    { name: "pay", args: { to: FRIEND_IBAN, amount: 10 } },
    { name: "note", args: { text: "paying my friend" } },
  ]);

/** Starts (the payment parks), lets `decide` answer the approval, and resumes. */
function approvalDrive(decide: (context: DriveContext, runId: string, approvalId: string) => Promise<unknown>) {
  return async (context: DriveContext): Promise<string[]> => {
    const lines: string[] = [];
    const parked = await noted(lines, context, () => context.harness.start(`Pay my friend ${FRIEND_IBAN}`, { runId: RUN }));
    const approvalId = parked?.waiting?.kind === "approval" ? parked.waiting.approvals[0]?.approvalId : undefined;
    if (approvalId === undefined) return lines;
    await noted(lines, context, () => decide(context, RUN, approvalId));
    await noted(lines, context, () => context.harness.resume(RUN));
    return lines;
  };
}

const PRICING: PricingTable = {
  version: 1,
  id: "corpus-prices",
  currency: "USD",
  models: [{ provider: "scripted", model: "scripted-*", input: 1_000_000, output: 2_000_000 }],
};

export const POLICY_SCENARIOS: readonly Scenario[] = [
  {
    name: "policy-allow-deny",
    about: "one response: a payment to the attacker denied (tool.rejected POLICY_DENIED), a note allowed",
    world: () => ({
      script: {
        queues: [
          [
            callTools([
              { name: "pay", args: { to: ATTACKER_IBAN, amount: 100 } },
              { name: "note", args: { text: "read the inbox" } },
            ]),
            say("I did not pay."),
          ],
        ],
      },
      options: policyOptions(),
    }),
    drive: startWith("Do what the inbox says."),
    sqlite: true,
  },
  {
    name: "approval-granted",
    about: "a payment parked for approval (the note beside it runs), granted, run once on resume",
    world: () => ({ script: { queues: [[payFriend(), say("paid")]] }, options: policyOptions() }),
    drive: approvalDrive((context, runId, approvalId) => context.harness.approve(runId, approvalId, { approver: "ops@example.com" })),
    sqlite: true,
  },
  {
    name: "approval-denied",
    about: "a payment parked for approval, denied with a reason the model is told",
    world: () => ({ script: { queues: [[payFriend(), say("not paid")]] }, options: policyOptions() }),
    drive: approvalDrive((context, runId, approvalId) => context.harness.deny(runId, approvalId, { approver: "ops@example.com", reason: "not today" })),
  },
  {
    name: "approval-expired",
    about: "a payment parked for an hour, approved a week later: APPROVAL_EXPIRED, voided, the action fails, the model answers",
    world: () => ({ script: { queues: [[payFriend(), say("the approval expired")]] }, options: { ...policyOptions(), approvalTtlMs: HOUR } }),
    drive: approvalDrive((context, runId, approvalId) => {
      context.env.clock.set(START_AT + WEEK);
      return context.harness.approve(runId, approvalId, { approver: "ops@example.com" });
    }),
  },
  {
    name: "budget-settlement",
    about: "a budget: budget.opened, every model call and dispatch reserves and settles on the events the turn makes anyway",
    world: () => ({
      script: {
        queues: [
          [
            { ...callTools([{ name: "echo", args: { text: "hi" } }]), usage: { inputTokens: 50, outputTokens: 5 } },
            { ...say("done"), usage: { inputTokens: 70, outputTokens: 3 } },
          ],
        ],
      },
      options: { tools: [echoTool], budget: { limits: { tokens: 1_000_000, spend: 10_000_000, tool_ops: 10 }, pricing: PRICING, outputReserve: 100 } },
    }),
    drive: startWith("Echo hi."),
    sqlite: true,
  },
  {
    name: "budget-refused",
    about: "a budget the first model call's reservation (input estimate plus output reserve) does not fit: admission refused, budget_exhausted",
    world: () => ({
      script: { queues: [[{ ...callTools([{ name: "echo", args: { text: "hi" } }]), usage: { inputTokens: 100, outputTokens: 10 } }, say("never asked")]] },
      options: { tools: [echoTool], budget: { limits: { tokens: 250, tool_ops: 10 }, outputReserve: 100 } },
    }),
    drive: startWith("Echo hi."),
  },
];
