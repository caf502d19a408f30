// Scenarios of the action states and outcomes the first corpus never reached: an outcome lost
// and reconciled, a reconciler that cannot tell (escalated), a compensation that fails
// (escalated), a call held behind an approval (proposed, validated), and a refusal a person
// closes (refused).
import { YokeError } from "@yoke/protocol";
import { defineTool } from "@yoke/runtime";
import { callTools, refuse, say } from "@yoke/testkit";
import { z } from "zod";
import { RUN } from "./corpus-kit.js";
import type { Scenario } from "./scenario.js";
import { FRIEND_IBAN, payTool, paymentsPolicy } from "./scenarios-policy.js";
import { echoTool, keyedTool, noted, startWith } from "./scenario-tools.js";

/** A charge whose acknowledgement is lost (TOOL_OUTCOME_UNKNOWN); its reconciler answers `verdict`. */
function lostAckTool(verdict: "applied" | "unknown") {
  return keyedTool(
    "charge",
    "irreversible",
    async () => {
      throw new YokeError("TOOL_OUTCOME_UNKNOWN", "the card network timed out after the charge was sent");
    },
    {
      reconcile: async () =>
        verdict === "applied"
          ? { status: "applied", receipt: "charge-1", content: "charged once (found by reconciliation)" }
          : { status: "unknown", reason: "the card network cannot say" },
    },
  );
}

/** A booking that commits and whose compensation fails, beside a payment that fails for good. */
function failingCompensationTools() {
  const book = keyedTool("book", "reversible", async ({ key }) => ({ content: `booked ${key}`, receipt: `booking-${key}` }), {
    compensate: async () => {
      throw new YokeError("TOOL_FAILED", "the hotel's cancellation desk is closed");
    },
  });
  const pay = keyedTool("pay", "irreversible", async () => {
    throw new YokeError("TOOL_FAILED", "card declined");
  });
  return [book, pay];
}

/** Writes the ledger the payment writes too: it must wait for the payment parked for approval. */
const auditTool = defineTool({
  name: "audit",
  description: "Record the payment in the ledger's audit trail.",
  input: z.object({ entry: z.string() }),
  sideEffect: "idempotent",
  access: () => ({ reads: [], writes: ["ledger"] }),
  execute: async ({ entry }) => `audited: ${entry}`,
});

export const OUTCOME_SCENARIOS: readonly Scenario[] = [
  {
    name: "uncertain-reconciled",
    about: "a charge's outcome is lost (uncertain); its reconciler finds it applied (reconciled), so it is never re-run",
    world: () => ({
      script: { queues: [[callTools([{ name: "charge", args: { key: "order-1" } }]), say("charged once")]] },
      options: { tools: [lostAckTool("applied")] },
    }),
    drive: startWith("Charge order 1."),
    sqlite: true,
  },
  {
    name: "uncertain-escalated",
    about: "a charge's outcome is lost and its reconciler cannot tell: the run ends escalated, naming the action",
    world: () => ({
      script: { queues: [[callTools([{ name: "charge", args: { key: "order-1" } }]), say("never asked")]] },
      options: { tools: [lostAckTool("unknown")] },
    }),
    drive: startWith("Charge order 1."),
  },
  {
    name: "compensation-failed",
    about: "the payment fails for good, the booking's compensation fails too: compensation_failed, the run escalates",
    world: () => ({
      script: {
        queues: [
          [
            callTools([
              { name: "book", args: { key: "room" } },
              { name: "pay", args: { key: "card" } },
            ]),
            say("never asked"),
          ],
        ],
      },
      options: { tools: failingCompensationTools() },
    }),
    drive: startWith("Book a room and pay."),
  },
  {
    name: "held-behind-approval",
    about: "a call writing what a payment parked for approval writes is held (proposed, validated, authorized) and runs after the grant",
    world: () => ({
      script: {
        queues: [
          [
            callTools([
              { name: "pay", args: { to: FRIEND_IBAN, amount: 10 } },
              { name: "audit", args: { entry: "paid my friend 10" } },
            ]),
            say("paid and audited"),
          ],
        ],
      },
      options: { tools: [payTool, auditTool], policy: paymentsPolicy(), principal: { id: "user_42", scopes: ["payments"] } },
    }),
    drive: async (context) => {
      const lines: string[] = [];
      const parked = await noted(lines, context, () => context.harness.start(`Pay my friend ${FRIEND_IBAN} and audit it`, { runId: RUN }));
      const approvalId = parked?.waiting?.kind === "approval" ? parked.waiting.approvals[0]?.approvalId : undefined;
      if (approvalId === undefined) return lines;
      await noted(lines, context, () => context.harness.approve(RUN, approvalId, { approver: "user_7" }));
      await noted(lines, context, () => context.harness.resume(RUN));
      return lines;
    },
    sqlite: true,
  },
  {
    name: "refusal-closed",
    about: "the model refuses, the run waits for a person, who closes it: refused",
    world: () => ({ script: { queues: [[refuse("I cannot help with that.")]] }, options: { tools: [echoTool] } }),
    drive: async (context) => {
      const lines: string[] = [];
      await noted(lines, context, () => context.harness.start("Do the forbidden thing.", { runId: RUN }));
      await noted(lines, context, () => context.harness.resume(RUN, { close: "the request was out of scope" }));
      return lines;
    },
  },
];
