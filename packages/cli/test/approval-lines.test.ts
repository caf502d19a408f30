// `yoke show` says why a person was asked: the rule that parked the call, its reason, and when
// the request expires, for a pending approval and for a decided one (a real run, real policy).
import { createMemoryJournal } from "@yoke/journal";
import { type PolicyEngineV1, steppingClock, ulidIdSource } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { showText } from "../src/format/show-text.js";
import { loadRunView } from "../src/inspect/load-run.js";

const TENANT = "tenant_approvals";
const START = Date.UTC(2026, 11, 7, 9);
const REVISION = "e".repeat(64);

/** Every side effect waits for a person (the decisions themselves are not what is tested). */
const engine: PolicyEngineV1 = {
  specificationVersion: "v1",
  revision: REVISION,
  decide: (tuple) =>
    tuple.sideEffect === "none"
      ? { effect: "allow", ruleId: "reads", policyRevision: REVISION, reason: "reads run" }
      : {
          effect: "require_approval",
          ruleId: "side-effects-need-a-person",
          policyRevision: REVISION,
          reason: "a call that changes something waits for a person",
        },
};

async function parkedRun() {
  const journal = createMemoryJournal();
  const clock = steppingClock(START, 1);
  const harness = createHarness({
    journal,
    provider: createScriptedModel([callTools([{ name: "post_note", args: { text: "hello" }, id: "call_note" }]), say("Posted.")]),
    tenantId: TENANT,
    clock,
    ids: ulidIdSource({ clock, random: () => 0.25 }),
    policy: engine,
    approvalTtlMs: 60_000,
    tools: [
      defineTool({
        name: "post_note",
        description: "Post a note.",
        input: z.object({ text: z.string() }),
        sideEffect: "idempotent",
        execute: async () => "posted",
      }),
    ],
  });
  const result = await harness.start("Post hello.", { runId: "run_parked" });
  return { journal, harness, result };
}

describe("yoke show: approvals", () => {
  it("prints the rule, its reason and the expiry of a pending approval, then the decision", async () => {
    const { journal, harness, result } = await parkedRun();
    expect(result.waiting?.kind).toBe("approval");
    const scope = { tenantId: TENANT, runId: "run_parked" };
    const pending = showText(await loadRunView(journal, scope), { events: false });
    const at = pending.findIndex((line) => /^approval approval_\S+ for action_\S+ #\d+: pending$/.test(line));
    expect(at).toBeGreaterThanOrEqual(0);
    expect(pending[at + 1]).toMatch(/^ {2}asked by rule side-effects-need-a-person: a call that changes something waits for a person; expires \S+/);
    const view = await loadRunView(journal, scope);
    expect(view.approvals[0]).toMatchObject({ rule: "side-effects-need-a-person", expiresAt: expect.any(Number) });
    expect(view.approvals[0]!.expiresAt! - START).toBeGreaterThan(59_000);

    const approvalId = result.waiting?.kind === "approval" ? result.waiting.approvals[0]!.approvalId : "";
    await harness.deny("run_parked", approvalId, { approver: "ops@example.test", reason: "not today" });
    const decided = showText(await loadRunView(journal, scope), { events: false });
    const line = decided.findIndex((entry) => entry.includes(`approval ${approvalId}`));
    expect(decided[line]).toMatch(/: denied by ops@example\.test$/);
    expect(decided[line + 1]).toContain("asked by rule side-effects-need-a-person");
  });
});
