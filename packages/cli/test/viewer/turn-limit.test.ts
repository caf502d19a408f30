import { type JournalV1, steppingClock, ulidIdSource } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { callTools, createScriptedModel } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loadRunView } from "../../src/inspect/load-run.js";
import { screenshotPath } from "./chromium.js";
import { viewerOver } from "./viewer-over.js";

const TENANT = "tenant_limits";
const BUDGETED = "run_budget_turns";
const PLAIN = "run_max_turns";

/** A model that never stops calling `note`: the run ends at whichever turn limit binds. */
async function writeRun(journal: JournalV1, runId: string, limits: { maxTurns: number; budgetTurns?: number }): Promise<void> {
  const clock = steppingClock(Date.UTC(2026, 11, 7, 10), 5);
  const steps = Array.from({ length: limits.maxTurns }, (_, index) => ({
    ...callTools([{ name: "note", args: { text: `note ${index}` } }]),
    usage: { inputTokens: 40, outputTokens: 6 },
  }));
  const harness = createHarness({
    journal,
    provider: createScriptedModel(steps),
    tenantId: TENANT,
    clock,
    ids: ulidIdSource({ clock, random: () => 0.25 }),
    maxTurns: limits.maxTurns,
    ...(limits.budgetTurns === undefined ? {} : { budget: { limits: { turns: limits.budgetTurns, tokens: 1_000_000 } }, context: { maxOutputTokens: 256 } }),
    tools: [
      defineTool({ name: "note", description: "Write a note.", input: z.object({ text: z.string() }), sideEffect: "none", execute: async () => "noted" }),
    ],
  });
  await harness.start("Keep taking notes.", { runId });
}

const fixture = viewerOver("limits", async (writer) => {
  await writeRun(writer, BUDGETED, { maxTurns: 20, budgetTurns: 3 });
  await writeRun(writer, PLAIN, { maxTurns: 2 });
});

describe("the viewer's turn limit", () => {
  it("is the budget's turns when smaller than maxTurns, and the outcome names the dimension, the ask and what was left", async () => {
    const view = await loadRunView(fixture.journal, { tenantId: TENANT, runId: BUDGETED });
    // The fourth turn is opened and its first call refused: the journal counts it among the run's turns.
    expect(view.header).toMatchObject({ maxTurns: 20, turnLimit: 3, turns: 4 });
    expect(view.header.outcome).toMatchObject({ status: "budget_exhausted", budget: "turns", limit: 3, requested: 1, remaining: 0 });
    const page = await fixture.browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${fixture.viewer.url}#/run/${TENANT}/${BUDGETED}`);
    await page.waitForSelector("#timeline[data-ready=true]");
    const facts = page.locator("#run-facts");
    expect(await facts.textContent()).toContain(`turns ${view.header.turns} of 3`);
    expect(await facts.textContent()).not.toContain("of 20");
    expect(await page.locator("#turn-limit").getAttribute("title")).toBe("the budget's turns limit (maxTurns 20)");
    const outcome =
      (await page
        .locator(".block")
        .filter({ has: page.locator(".label", { hasText: /^outcome$/ }) })
        .textContent()) ?? "";
    for (const fact of ["budgetturns", "limit3", "requested1", "remaining0"]) expect(outcome.replace(/\s+/g, "")).toContain(fact);
    await page.screenshot({ path: screenshotPath("turn-limit-budget"), fullPage: true });
    await page.close();
  });

  it("is maxTurns for a run without a budget", async () => {
    const view = await loadRunView(fixture.journal, { tenantId: TENANT, runId: PLAIN });
    expect(view.header).toMatchObject({ maxTurns: 2, turnLimit: 2, turns: 2 });
    const page = await fixture.browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${fixture.viewer.url}#/run/${TENANT}/${PLAIN}`);
    await page.waitForSelector("#timeline[data-ready=true]");
    expect(await page.locator("#run-facts").textContent()).toContain("turns 2 of 2");
    expect(await page.locator("#turn-limit").getAttribute("title")).toBe("maxTurns");
    await page.close();
  });
});
