// The run viewer in a real browser (Debian's chromium through playwright-core) on journals
// written by real runs (packages/cli/test/support/journals.ts): the runs list, a run's
// timeline, a manifest, an action's state strip (a write cut by SIGKILL and reconciled), usage
// and cost, the tampered-chain warning, and a 10,000-event run. Every check compares the page
// with the run model the CLI builds from the same journal. Screenshots: test-artifacts/viewer/.
import { createSqliteJournal } from "@yoke/journal";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadRunView } from "../../src/inspect/load-run.js";
import type { RunView } from "../../src/inspect/run-view.js";
import { type CliJournal, openStore } from "../../src/store/open-store.js";
import { startViewer } from "../../src/viewer/index.js";
import { completedRun, crashedAndResumedRun, largeRun, type ProducedJournal, removeJournals, tamperedRun } from "../support/journals.js";
import { launchChromium, openAllDetails, screenshotPath } from "./chromium.js";
import { PLANTED_RUN, PLANTED_TENANT, writePlantedRunInto } from "./planted-run.js";

interface Opened {
  readonly journal: CliJournal;
  readonly viewer: { url: string; close(): Promise<void> };
  readonly view: RunView;
  readonly produced: ProducedJournal;
}

let browser: Browser;
const opened: Opened[] = [];

async function open(produced: ProducedJournal): Promise<Opened> {
  const journal = await openStore(produced.file);
  const viewer = await startViewer({ journal });
  const view = await loadRunView(journal, { tenantId: produced.tenantId, runId: produced.runId });
  const entry = { journal, viewer, view, produced };
  opened.push(entry);
  return entry;
}

async function runPage(target: Opened): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${target.viewer.url}#/run/${target.produced.tenantId}/${target.produced.runId}`);
  await page.waitForSelector("#timeline[data-ready=true]");
  return page;
}

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  for (const entry of opened) {
    await entry.viewer.close();
    await entry.journal.close();
  }
  removeJournals();
});

describe("run viewer in chromium", () => {
  it("lists the journal's runs across tenants and opens one", async () => {
    // The completed run and, in the same file, a second tenant's run.
    const produced = await completedRun({ fresh: true });
    const writer = await createSqliteJournal({ filename: produced.file });
    await writePlantedRunInto(writer);
    await writer.close();
    const target = await open(produced);
    const page = await browser.newPage({ viewport: { width: 1280, height: 500 } });
    await page.goto(target.viewer.url);
    await page.waitForSelector("#runs tbody tr[data-run]");
    const rows = page.locator("#runs tbody tr[data-run]");
    expect(await rows.count()).toBe(2);
    const completed = page.locator('#runs tr[data-run="run_cli"]');
    expect(await completed.locator("td").nth(1).textContent()).toBe("tenant_cli");
    expect(await completed.locator("td").nth(2).textContent()).toBe("verified_success");
    expect(await completed.locator("td").nth(4).textContent()).toBe(String(target.view.header.turns));
    expect(await completed.locator("td").nth(5).textContent()).toBe(String(target.view.header.events));
    expect(await page.locator(`#runs tr[data-run="${PLANTED_RUN}"] td`).nth(1).textContent()).toBe(PLANTED_TENANT);
    // The filter narrows the list.
    await page.fill("input[type=search]", PLANTED_TENANT);
    expect(await rows.count()).toBe(1);
    await page.fill("input[type=search]", "");
    await page.screenshot({ path: screenshotPath("runs-list"), fullPage: true });
    await completed.locator("a").click();
    await page.waitForSelector("#timeline[data-ready=true]");
    expect(await page.locator("h1").textContent()).toBe("Run run_cli");
    await page.close();
  });

  it("shows a run as a timeline of turns with each model call's response, usage and cost", async () => {
    const target = await open(await completedRun());
    const page = await runPage(target);
    const view = target.view;
    const turns = view.turns.filter((turn) => turn.index > 0);
    expect(await page.locator("#timeline article.turn").count()).toBe(turns.length);
    expect(await page.locator("#timeline article.turn .turn-head .title").allTextContents()).toEqual(turns.map((turn) => `Turn ${turn.index}`));
    expect(await page.locator("#chain").getAttribute("data-chain")).toBe("ok");
    expect(await page.locator("#chain").textContent()).toContain(`Hash chain verified: ${view.header.events} events`);
    // Responses: stop reasons in order, the final answer's text.
    const stops = turns.flatMap((turn) => turn.modelCalls.map((call) => call.response!.stopReason));
    expect(await page.locator("#timeline .response").evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-stop-reason")))).toEqual(stops);
    expect(await page.locator("#timeline .response .part pre").last().textContent()).toBe("summary.md lists the three todo items and the check passes.");
    // Usage and cost over the run (micro-dollars shown as USD), and one bar per turn.
    expect(await page.locator("#usage").textContent()).toContain(`input tokens ${view.usage.inputTokens.toLocaleString("en-US")}`);
    expect(view.usage.cost).toBe(9540); // micro-dollars: shown in dollars, to the micro-dollar below a cent
    expect(await page.locator("#run-cost").textContent()).toBe("cost USD 0.009540");
    expect(await page.locator("#usage .bars").first().locator(".bar").count()).toBe(turns.length);
    // The malformed write, rejected before it became an action.
    expect(await page.locator('article[data-turn="2"] .action.rejected').textContent()).toContain("rejected TOOL_INPUT_INVALID");
    await page.screenshot({ path: screenshotPath("run-timeline"), fullPage: true });
    await page.close();
  });

  it("shows a model call's manifest: items, trust labels and the token allocation", async () => {
    const target = await open(await completedRun());
    const page = await runPage(target);
    const call = target.view.turns[1]!.modelCalls[0]!;
    const manifest = call.manifest!;
    const details = page.locator('article[data-turn="1"] details.manifest');
    expect(await details.locator("summary").textContent()).toContain(
      `${manifest.counts.included} included, ${manifest.counts.truncated} truncated, ${manifest.counts.omitted} omitted`,
    );
    await details.locator("summary").click();
    const rows = details.locator("table.manifest-items tbody tr[data-item]");
    await rows.first().waitFor();
    expect(await rows.evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-item")))).toEqual(manifest.items.map((item) => item.id));
    const trustCells = await rows.evaluateAll((nodes) => nodes.map((node) => node.children[3]!.textContent));
    expect(trustCells).toEqual(manifest.items.map((item) => item.trust));
    const allocation = await details.locator(".allocation").textContent();
    expect(allocation).toContain(`context window${manifest.allocation.contextWindow.toLocaleString("en-US")}`);
    expect(allocation).toContain(`used${manifest.allocation.used.toLocaleString("en-US")}`);
    expect(allocation).toContain(`free${manifest.allocation.free.toLocaleString("en-US")}`);
    await details.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath("manifest"), fullPage: true });
    await page.close();
  });

  it("shows an action cut by SIGKILL and resumed as a state strip with its attempts and reconciliation", async () => {
    const target = await open(await crashedAndResumedRun());
    const page = await runPage(target);
    // Every turn on screen (this run fits one page; a longer one renders more as the reader scrolls).
    await expect
      .poll(async () => page.locator("#timeline").getAttribute("data-rendered"), { timeout: 20_000 })
      .toBe(String(target.view.turns.filter((turn) => turn.index > 0).length));
    const write = target.view.actions.find((action) => action.toolName === "write_file")!;
    expect(write.steps.map((step) => step.state)).toContain("uncertain");
    const card = page.locator(`.action[data-action="${write.actionId}"]`);
    expect(await card.getAttribute("data-state")).toBe("committed");
    const strip = await card.locator(".strip .state").evaluateAll((nodes) => nodes.map((node) => node.textContent));
    expect(strip).toEqual(write.steps.map((step) => `${step.verdict === undefined ? step.state : `reconciled: ${step.verdict}`}#${step.seq}`));
    // The reconciliation that let the write be retried is drawn as one, with its verdict, never as a second "authorized".
    const reconciled = write.steps.find((step) => step.event === "action.reconciled")!;
    expect(reconciled.verdict).toBe(write.reconciliations[0]!.verdict);
    expect(strip.filter((text) => text?.startsWith("authorized"))).toEqual([`authorized#${write.steps.find((step) => step.state === "authorized")!.seq}`]);
    const drawn = card.locator(".strip .state.reconciliation-step");
    expect(await drawn.count()).toBe(1);
    expect(await drawn.getAttribute("data-verdict")).toBe(reconciled.verdict);
    expect(await drawn.getAttribute("data-state")).toBe(reconciled.state);
    expect(await drawn.getAttribute("title")).toContain(`action.reconciled · attempt ${reconciled.attempt}`);
    await card.locator("details.attempts summary").click();
    await card.locator("details.attempts .block").first().waitFor(); // built on the toggle event
    expect(await card.locator("details.attempts .block").count()).toBe(write.attempts.length);
    expect(write.attempts.length).toBeGreaterThanOrEqual(2);
    expect(await card.locator("details.attempts summary").textContent()).toBe(
      `${write.attempts.length} attempts: ${write.attempts.map((attempt) => attempt.outcome).join(", ")}`,
    );
    expect(write.attempts.map((attempt) => attempt.outcome)).toEqual(["uncertain", "committed"]);
    if (write.reconciliations.length > 0) {
      expect(await card.locator(".reconciliation").count()).toBe(write.reconciliations.length);
      expect(await card.locator(".reconciliation").first().textContent()).toContain(write.reconciliations[0]!.verdict);
    }
    await card.scrollIntoViewIfNeeded();
    await card.screenshot({ path: screenshotPath("action-strip-resumed") });
    await page.screenshot({ path: screenshotPath("run-resumed"), fullPage: true });
    await page.close();
  });

  it("warns of a tampered chain, naming the first bad seq, and shows only the events before it", async () => {
    const produced = await tamperedRun();
    const target = await open(produced);
    expect(target.view.chain).toMatchObject({ checked: true, ok: false, firstBadSeq: produced.tamperedSeq });
    const page = await runPage(target);
    const banner = page.locator("#chain");
    expect(await banner.getAttribute("role")).toBe("alert");
    expect(await banner.getAttribute("data-first-bad-seq")).toBe(String(produced.tamperedSeq));
    expect(await banner.textContent()).toContain(`Tampered chain: verification fails at event #${produced.tamperedSeq} (hash_mismatch)`);
    expect(await banner.textContent()).toContain(`Shown: the ${produced.tamperedSeq} events before #${produced.tamperedSeq}`);
    // The run as far as it verifies: one turn, no outcome (one status badge, not two).
    expect(await page.locator("#run-facts span").nth(1).textContent()).toBe(`status ${target.view.header.status}`);
    // The edited text never reaches the page.
    await openAllDetails(page);
    expect(await page.locator("main").textContent()).not.toContain("ship the journa1");
    await page.screenshot({ path: screenshotPath("tampered-chain"), fullPage: true });
    // The raw events stop before the bad one too, and the runs list flags the run.
    await page.goto(`${target.viewer.url}#/run/${produced.tenantId}/${produced.runId}/events?from=0`);
    await page.waitForSelector("#events tbody tr[data-seq]");
    expect(await page.locator("#events tbody tr[data-seq]").last().getAttribute("data-seq")).toBe(String(produced.tamperedSeq - 1));
    await page.goto(target.viewer.url);
    await page.waitForSelector("#runs tbody tr[data-run]");
    expect(await page.locator('#runs tr[data-run="run_cli"]').textContent()).toContain(`chain broken at #${produced.tamperedSeq}`);
    await page.close();
  });

  it("opens a 10,000-event run with its turns rendered a page at a time, and pages its raw events", async () => {
    const produced = await largeRun();
    expect(produced.events).toBeGreaterThanOrEqual(10_000);
    const target = await open(produced);
    const page = await runPage(target);
    const turns = target.view.turns.filter((turn) => turn.index > 0).length;
    const first = Number(await page.locator("#timeline").getAttribute("data-rendered"));
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(turns);
    // A bounded first render: a few pages of actions, not the run's thousands.
    expect(await page.locator(".action").count()).toBeLessThanOrEqual(64 + 16);
    expect(target.view.actions.length).toBeGreaterThan(2_000);
    expect(await page.locator("#usage .bars").first().locator(".bar").count()).toBeLessThanOrEqual(300);
    await page.screenshot({ path: screenshotPath("large-run") });
    // Scrolling to the end of what is rendered renders more.
    await page.locator("button.more").scrollIntoViewIfNeeded();
    await expect.poll(async () => Number(await page.locator("#timeline").getAttribute("data-rendered")), { timeout: 20_000 }).toBeGreaterThan(first);
    // Raw events: 100 a page, the last page ends at the last event.
    await page.goto(`${target.viewer.url}#/run/${produced.tenantId}/${produced.runId}/events?from=${produced.events - 50}`);
    await page.waitForSelector("#events tbody tr[data-seq]");
    expect(await page.locator("#events tbody tr[data-seq]").count()).toBe(50);
    expect(await page.locator("#events tbody tr[data-seq]").last().getAttribute("data-seq")).toBe(String(produced.events - 1));
    expect(await page.locator(".pager").first().textContent()).toContain(`of ${produced.events.toLocaleString("en-US")}`);
    await page.close();
  }, 240_000);
});
