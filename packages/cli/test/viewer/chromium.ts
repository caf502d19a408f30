// Debian's chromium driven by playwright-core (playwright's own browser download does not work
// here; scripts/ensure-chromium.sh installs the apt package). Flags: headless, no sandbox (tests
// run as root), and no background networking, which this machine's closed network refuses.
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";

export const CHROMIUM_PATH = "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
] as const;

/** Launches chromium with a fresh, empty profile (playwright makes a temporary user data dir). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS] });
}

/** test-artifacts/viewer at the repository root (gitignored; a copy of each is kept in reports/viewer/). */
export function screenshotDir(): string {
  const dir = resolve(import.meta.dirname, "../../../../test-artifacts/viewer");
  mkdirSync(dir, { recursive: true });
  return dir;
}

export const screenshotPath = (name: string) => join(screenshotDir(), `${name}.png`);

/**
 * Opens every <details> of the page (the viewer builds their bodies lazily, on the first
 * toggle), then waits for the toggle events to have run. A string, evaluated in the page: the
 * tests typecheck without the DOM library.
 */
export async function openAllDetails(page: Page): Promise<void> {
  await page.evaluate("document.querySelectorAll('details:not([open])').forEach((details) => { details.open = true; })");
  await page.evaluate("new Promise((resolve) => setTimeout(resolve, 0))");
}
