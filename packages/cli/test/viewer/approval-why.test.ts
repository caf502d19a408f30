import { type JournalV1, type PolicyEngineV1, steppingClock, ulidIdSource } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { callTools, createScriptedModel } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loadRunView } from "../../src/inspect/load-run.js";
import { screenshotPath } from "./chromium.js";
import { PLANTED_IMG } from "./planted-run.js";
import { viewerOver } from "./viewer-over.js";

const TENANT = "tenant_why";
const RUN = "run_parked";
const REVISION = "f".repeat(64);
const START = Date.UTC(2026, 11, 7, 11);

/** Every side effect waits for a person; the reason carries markup, shown as text. */
const engine: PolicyEngineV1 = {
  specificationVersion: "v1",
  revision: REVISION,
  decide: () => ({ effect: "require_approval", ruleId: "notes-need-a-person", policyRevision: REVISION, reason: `every note is checked ${PLANTED_IMG}` }),
};

async function writeRun(journal: JournalV1): Promise<void> {
  const clock = steppingClock(START, 1);
  const harness = createHarness({
    journal,
    provider: createScriptedModel([callTools([{ name: "post_note", args: { text: "hello" }, id: "call_note" }])]),
    tenantId: TENANT,
    clock,
    ids: ulidIdSource({ clock, random: () => 0.75 }),
    policy: engine,
    approvalTtlMs: 15 * 60_000,
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
  const result = await harness.start("Post hello.", { runId: RUN });
  if (result.waiting?.kind !== "approval") throw new Error("the run did not park");
}

const fixture = viewerOver("why", async (writer) => {
  await writeRun(writer);
});

describe("viewer: why an approval was asked", () => {
  it("shows the rule, the reason as text and the expiry under a pending approval", async () => {
    const view = await loadRunView(fixture.journal, { tenantId: TENANT, runId: RUN });
    const approval = view.approvals[0]!;
    expect(approval).toMatchObject({ rule: "notes-need-a-person", reason: `every note is checked ${PLANTED_IMG}`, decision: undefined });
    const page = await fixture.browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${fixture.viewer.url}#/run/${TENANT}/${RUN}`);
    await page.waitForSelector("#timeline[data-ready=true]");
    const why = page.locator("#run-extras .approval-why");
    await expect.poll(() => why.count(), { timeout: 20_000 }).toBe(1);
    const text = (await why.textContent()) ?? "";
    expect(text).toContain(`asked by rule notes-need-a-person: every note is checked ${PLANTED_IMG}; expires `);
    expect(text).toContain(new Date(approval.expiresAt!).toISOString().slice(0, 10));
    expect(await page.locator("img").count()).toBe(0);
    await page.screenshot({ path: screenshotPath("approval-why"), fullPage: true });
    await page.close();
  });
});
