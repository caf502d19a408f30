import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JournalV1 } from "@yoke/protocol";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { startViewer } from "../../src/viewer/index.js";
import { launchChromium, openAllDetails, screenshotPath } from "./chromium.js";
import { PLANTED_IMG, PLANTED_RUN, PLANTED_SCRIPT, writePlantedRun } from "./planted-run.js";

let dir: string;
let journal: JournalV1;
let viewer: { url: string; close(): Promise<void> };
let browser: Browser;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "yoke-viewer-planted-"));
  journal = await openStore(await writePlantedRun(dir));
  viewer = await startViewer({ journal, runId: PLANTED_RUN });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  await journal?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("viewer: untrusted journal content", () => {
  it("shows a <script> planted in a tool result as text and never runs it", async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(viewer.url);
    await page.waitForSelector("#timeline[data-ready=true]");
    // Open every <details> so the lazily built parts (arguments, attempts, manifests) render too.
    await openAllDetails(page);
    const result = page.locator(".action .tool-result pre").first();
    await expect.poll(() => result.textContent(), { timeout: 20_000 }).toContain(PLANTED_SCRIPT);
    expect(await result.textContent()).toContain(PLANTED_IMG);
    // The model's answer quoting it is text too.
    expect(await page.locator(".response .part pre").filter({ hasText: "The page said:" }).textContent()).toContain(PLANTED_SCRIPT);
    expect(await page.evaluate("typeof window.__yokePwned")).toBe("undefined");
    // No element was made from the journal's markup: the only <script> is the viewer's own, and no <img> exists.
    expect(await page.evaluate('[...document.scripts].map((script) => script.getAttribute("src"))')).toEqual(["/viewer.js"]);
    expect(await page.locator("img").count()).toBe(0);
    await page.screenshot({ path: screenshotPath("planted-script-as-text"), fullPage: true });
    expect(violations).toEqual([]);
    await page.close();
  });
});
