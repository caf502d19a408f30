// One viewer over a SQLite journal that `write` fills, and a chromium to look at it: opened
// before a test file's tests, closed after them. The tests read `fixture.journal`,
// `fixture.viewer` and `fixture.browser` once `beforeAll` has run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import type { JournalV1 } from "@yoke/protocol";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { startViewer } from "../../src/viewer/index.js";
import { launchChromium } from "./chromium.js";

export interface ViewerFixture {
  journal: JournalV1;
  viewer: { url: string; close(): Promise<void> };
  browser: Browser;
}

/** Registers the hooks; `name` names the temporary folder. */
export function viewerOver(name: string, write: (journal: JournalV1) => Promise<void>): ViewerFixture {
  const fixture = {} as ViewerFixture;
  let dir: string | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `yoke-viewer-${name}-`));
    const filename = join(dir, `${name}.sqlite`);
    const writer = await createSqliteJournal({ filename });
    try {
      await write(writer);
    } finally {
      await writer.close();
    }
    fixture.journal = await openStore(filename);
    fixture.viewer = await startViewer({ journal: fixture.journal });
    fixture.browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await fixture.browser?.close();
    await fixture.viewer?.close();
    await fixture.journal?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
  return fixture;
}
