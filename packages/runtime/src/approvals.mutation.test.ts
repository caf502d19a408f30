import { createMemoryJournal } from "@yoke/journal";
import { parseYokeEvent, type ApprovalBinding, type Message, type ToolResultPart } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readAll } from "./__fixtures__/harness-fixtures.js";
import { FRIEND_IBAN, POLICY_V2, functionEngine, ledger, manualClock, payTool, policyRig } from "./__fixtures__/policy-fixtures.js";

/*
 * The approval mutation test (issue 14): every single-field mutation of an approved action is
 * refused at dispatch, and an unchanged binding under any transient call id is never refused.
 * A mutation is made on one of two sides: the world changed between approval and dispatch
 * (the tool's definition, the resource's base revision, the policy, the clock), or the
 * approval itself names something else (a grant journaled for another binding: arguments,
 * tool revision, tenant, principal, …), which no API can produce but a forged or stale
 * record could.
 */

const FIELDS = ["actionDigest", "toolRevision", "resourceRevision", "policyRevision", "tenantId", "principalId", "expiresAt"] as const;
type Field = (typeof FIELDS)[number];
const WORLD: readonly Field[] = ["toolRevision", "resourceRevision", "policyRevision", "expiresAt"];

type Mutation = { readonly kind: "none" } | { readonly kind: "approved" | "world"; readonly field: Field };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constant<Mutation>({ kind: "none" }),
  fc.constantFrom(...FIELDS).map((field): Mutation => ({ kind: "approved", field })),
  fc.constantFrom(...WORLD).map((field): Mutation => ({ kind: "world", field })),
);

function mutated(binding: ApprovalBinding, field: Field, now: number): ApprovalBinding {
  switch (field) {
    case "expiresAt":
      return { ...binding, expiresAt: now };
    case "resourceRevision":
      return { ...binding, resourceRevision: `${binding.resourceRevision ?? ""}-other` };
    case "tenantId":
    case "principalId":
      return { ...binding, [field]: `${binding[field]}_other` };
    default:
      return { ...binding, [field]: binding[field].replace(/^./, (first) => (first === "0" ? "1" : "0")) };
  }
}

function lastToolResults(messages: readonly Message[]): ToolResultPart[] {
  const tool = messages.filter((message) => message.role === "tool").at(-1);
  return tool?.role === "tool" ? tool.content : [];
}

describe("approval mutation", () => {
  it("refuses every single-field mutation of an approved action at dispatch, with 0 false invalidations", async () => {
    const tally = { unchanged: 0, falseInvalidations: 0, refused: 0, missedMutations: 0 };
    await fc.assert(
      fc.asyncProperty(mutationArb, fc.stringMatching(/^[a-z0-9_-]{1,24}$/), fc.integer({ min: 1, max: 1_000_000 }), async (mutation, callId, amount) => {
        ledger.revision = "ledger@1";
        const journal = createMemoryJournal();
        const clock = manualClock(10_000);
        const pay = payTool();
        const engine = functionEngine(() => ["require_approval", "payments-need-a-person"]);
        let shown: ToolResultPart | undefined;
        const steps = [
          callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount }, id: callId }]),
          (request: { messages: readonly Message[] }) => {
            shown = lastToolResults(request.messages)[0];
            return say("done");
          },
        ];
        const { harness, model } = policyRig(steps, { policy: engine, tools: [pay.tool], journal, clock, approvalTtlMs: 1_000 });
        const parked = await harness.start(`Pay ${FRIEND_IBAN}`);
        const request = parked.waiting!.approvals[0]!;
        const scope = { tenantId: parked.state.tenantId, runId: parked.runId };
        if (mutation.kind === "approved") {
          // A grant journaled for another binding than the request's.
          const lease = await journal.leases.acquire(scope, { ownerId: "forger", ttlMs: 10_000 });
          const head = await journal.head(scope);
          const binding = mutated({ ...request.binding, expiresAt: clock.now() + 1_000 }, mutation.field, clock.now());
          const data = { actionId: request.actionId, approvalId: request.approvalId, approver: "ops", binding };
          await journal.append(scope, head!.length, [{ type: "approval.granted", at: clock.now(), causationId: request.actionId, data }], { lease });
          await journal.leases.release(lease);
        } else {
          await harness.approve(parked.runId, request.approvalId, { approver: "ops" });
        }
        let resumer = harness;
        let other = pay;
        if (mutation.kind === "world") {
          switch (mutation.field) {
            case "toolRevision":
              other = payTool("Send money to an IBAN (v2).");
              resumer = policyRig([], { policy: engine, tools: [other.tool], journal, clock, provider: model }).harness;
              break;
            case "policyRevision":
              resumer = policyRig([], { policy: functionEngine(() => ["allow", "x"], POLICY_V2), tools: [pay.tool], journal, clock, provider: model }).harness;
              break;
            case "resourceRevision":
              ledger.revision = "ledger@2";
              break;
            case "expiresAt":
              clock.set(clock.now() + 1_000);
              break;
          }
        }
        const done = await resumer.resume(parked.runId);
        ledger.revision = "ledger@1";
        expect(done.outcome?.status).toBe("completed");
        const events = (await readAll(journal, parked.runId)).map(parseYokeEvent);
        const ran = pay.calls.length + (other === pay ? 0 : other.calls.length);
        if (mutation.kind === "none") {
          tally.unchanged += 1;
          if (ran !== 1 || shown?.result.status !== "ok") tally.falseInvalidations += 1;
          expect(ran).toBe(1);
          expect(events.some((event) => event.type === "approval.voided")).toBe(false);
          return;
        }
        const voided = events.find((event) => event.type === "approval.voided");
        if (ran !== 0 || voided === undefined) tally.missedMutations += 1;
        else tally.refused += 1;
        expect(ran).toBe(0);
        const code = mutation.field === "expiresAt" ? "APPROVAL_EXPIRED" : "APPROVAL_INVALID";
        expect(voided?.type === "approval.voided" && voided.data.code).toBe(code);
        expect(voided?.type === "approval.voided" && voided.data.fields).toContain(mutation.field);
        expect(shown?.result.error?.code).toBe(code);
        const failed = events.find((event) => event.type === "action.failed");
        expect(failed?.type === "action.failed" && failed.data.dispatched).toBe(false);
      }),
      {
        numRuns: 120,
        // Every mutation, on each side it can happen, runs first; then random ones and random call ids.
        examples: [
          [{ kind: "none" }, "call_1", 10],
          ...FIELDS.map((field): [Mutation, string, number] => [{ kind: "approved", field }, "call_1", 10]),
          ...WORLD.map((field): [Mutation, string, number] => [{ kind: "world", field }, "call_1", 10]),
        ],
      },
    );
    expect(tally.falseInvalidations).toBe(0);
    expect(tally.missedMutations).toBe(0);
    expect(tally.unchanged).toBeGreaterThan(0);
    // Every single-field mutation on each side ran at least once (the examples), and refused.
    expect(tally.refused).toBeGreaterThanOrEqual(FIELDS.length + WORLD.length);
  }, 120_000);
});
