// The viewer names the session a run belongs to and links its sibling runs, in order, from the
// session's stream (in Debian's chromium, as the other viewer tests).
import { type JournalV1, steppingClock, ulidIdSource } from "@yoke/protocol";
import { createHarness } from "@yoke/runtime";
import { createScriptedModel, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { createViewerData } from "../../src/viewer/viewer-data.js";
import { screenshotPath } from "./chromium.js";
import { viewerOver } from "./viewer-over.js";

const TENANT = "tenant_session_view";
const SESSION = "session_view";

async function send(journal: JournalV1, runId: string, task: string, minute: number, sessionId?: string): Promise<void> {
  const clock = steppingClock(Date.UTC(2026, 11, 7, 10, minute), 5);
  const harness = createHarness({
    journal,
    provider: createScriptedModel([say(`answer to ${task}`)]),
    tenantId: TENANT,
    clock,
    ids: ulidIdSource({ clock, random: () => 0.25 }),
  });
  await harness.start(task, { runId, ...(sessionId === undefined ? {} : { sessionId }) });
}

const fixture = viewerOver("sessions", async (writer) => {
  await send(writer, "run_first", "First question.", 0, SESSION);
  await send(writer, "run_second", "Second question.", 1, SESSION);
  await send(writer, "run_alone", "A run of its own.", 2);
});

describe("the viewer's session of a run", () => {
  it("names the session and links the other runs in the order the session recorded them", async () => {
    const payload = await createViewerData(fixture.journal).run({ tenantId: TENANT, runId: "run_second" });
    expect(payload.session).toEqual({ sessionId: SESSION, runs: ["run_first", "run_second"] });
    const alone = await createViewerData(fixture.journal).run({ tenantId: TENANT, runId: "run_alone" });
    expect(alone.session).toEqual({ sessionId: alone.view.header.sessionId, runs: ["run_alone"] });

    const page = await fixture.browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${fixture.viewer.url}#/run/${TENANT}/run_second`);
    await page.waitForSelector("#timeline[data-ready=true]");
    expect((await page.locator("#run-session").textContent())?.replace(/\s+/g, " ")).toBe(`session ${SESSION} · runs run_first, run_second`);
    expect(await page.locator("#run-session a").evaluateAll((links) => links.map((link) => link.getAttribute("href")))).toEqual([`#/run/${TENANT}/run_first`]);
    await page.screenshot({ path: screenshotPath("session-siblings"), fullPage: true });
    await page.goto(`${fixture.viewer.url}#/run/${TENANT}/run_alone`);
    await page.waitForSelector("#timeline[data-ready=true]");
    expect(await page.locator("#run-session a").count()).toBe(0);
    await page.close();
  });
});
