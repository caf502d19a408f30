// A real run whose tool results carry hostile markup: a harness over a SQLite journal, a
// scripted model calling a tool that returns a <script> (and an <img onerror>) that would set a
// window flag if the page ever parsed it as HTML.
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import { type JournalV1, steppingClock, ulidIdSource } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { z } from "zod";

/** What the page must show as text, and the flags it must never set. */
export const PLANTED_SCRIPT = "<script>window.__yokePwned = 'script'</script>";
export const PLANTED_IMG = "<img src=x onerror=\"window.__yokePwned = 'img'\">";
export const PLANTED_TENANT = "tenant_viewer";
export const PLANTED_RUN = "run_planted";

/** Runs the planted run to completion into `<dir>/planted.sqlite` and returns the file. */
export async function writePlantedRun(dir: string): Promise<string> {
  const filename = join(dir, "planted.sqlite");
  const journal = await createSqliteJournal({ filename });
  try {
    await writePlantedRunInto(journal);
  } finally {
    await journal.close();
  }
  return filename;
}

/** Runs the planted run (tenant `tenant_viewer`, run `run_planted`) to completion on `journal`. */
export async function writePlantedRunInto(journal: JournalV1): Promise<void> {
  const clock = steppingClock(Date.UTC(2026, 11, 2, 9), 7);
  const model = createScriptedModel([
    { ...callTools([{ name: "fetch_page", args: { url: "https://example.test/issue" } }]), usage: { inputTokens: 120, outputTokens: 14 } },
    { ...say(`The page said: ${PLANTED_SCRIPT}`), usage: { inputTokens: 260, outputTokens: 30 } },
  ]);
  const harness = createHarness({
    journal,
    provider: model,
    tenantId: PLANTED_TENANT,
    clock,
    ids: ulidIdSource({ clock, random: () => 0.5 }),
    maxTurns: 4,
    tools: [
      defineTool({
        name: "fetch_page",
        description: "Fetch a web page (returns attacker-controlled text).",
        input: z.object({ url: z.string() }),
        sideEffect: "none",
        async execute() {
          return `Issue body: ${PLANTED_SCRIPT} and ${PLANTED_IMG}`;
        },
      }),
    ],
  });
  await harness.start("Read the issue page and tell me what it says.", { runId: PLANTED_RUN });
  model.assertConsumed();
}
