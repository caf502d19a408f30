// A step whose event is larger than the journal's maxEventBytes: the append is refused with
// JOURNAL_EVENT_TOO_LARGE and the run stops with that error journaled in `run.failed` (the
// journal alone says why), never a crash, never a half-written step. The event that did not
// fit is not in the journal; the chain still verifies.
import { createMemoryJournal, createSqliteJournal } from "@yoke/journal";
import { YokeError, isEventOfType, reduceRun, parseYokeEvent, type JournalV1, type YokeEvent } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { defineTool } from "./define-tool.js";
import { TENANT, readAll, rejectionOf, rig } from "./__fixtures__/harness-fixtures.js";
import { z } from "zod";

const LIMIT = 16 * 1024;
const root = mkdtempSync(join(tmpdir(), "yoke-event-size-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const journals: readonly [string, () => Promise<JournalV1>][] = [
  ["memory", async () => createMemoryJournal({ maxEventBytes: LIMIT })],
  ["sqlite", async () => createSqliteJournal({ filename: join(mkdtempSync(join(root, "j-")), "run.sqlite"), synchronous: "normal", maxEventBytes: LIMIT })],
];

const bigTool = defineTool({
  name: "big",
  description: "Returns 40 KiB of text (under the run's maxEventOutputBytes, over the journal's maxEventBytes).",
  input: z.object({}),
  sideEffect: "none",
  execute: async () => "y".repeat(40 * 1024),
});

async function events(journal: JournalV1, runId: string): Promise<YokeEvent[]> {
  return (await readAll(journal, runId)).map(parseYokeEvent);
}

describe.each(journals)("an event over maxEventBytes (%s journal)", (_name, open) => {
  it("a model response too large to journal: the run stops with run.failed JOURNAL_EVENT_TOO_LARGE, the chain verifies", async () => {
    const journal = await open();
    try {
      const { harness } = rig([say("z".repeat(40 * 1024))], { journal, checkCompletion: async () => ({ passed: true }) });
      const error = await rejectionOf(harness.start("t", { runId: "run_big_response" }));
      expect(YokeError.hasCode(error, "JOURNAL_EVENT_TOO_LARGE")).toBe(true);
      const journaled = await events(journal, "run_big_response");
      expect(journaled.some((event) => event.type === "model.responded")).toBe(false);
      const last = journaled.at(-1)!;
      expect(isEventOfType(last, "run.failed") && last.data).toMatchObject({ code: "JOURNAL_EVENT_TOO_LARGE", retryable: false });
      expect(await journal.verify({ tenantId: TENANT, runId: "run_big_response" })).toMatchObject({ ok: true });
      // The run.failed names a turn the journal holds: the log folds, and a resume continues from it.
      expect(reduceRun(journaled).phase).toBe("awaiting_response");
    } finally {
      await journal.close();
    }
  });

  it("a tool result too large to journal: the run stops with run.failed JOURNAL_EVENT_TOO_LARGE", async () => {
    const journal = await open();
    try {
      const { harness } = rig([callTools([{ name: "big", args: {} }]), say("done")], {
        journal,
        tools: [bigTool],
        checkCompletion: async () => ({ passed: true }),
      });
      const error = await rejectionOf(harness.start("t", { runId: "run_big_result" }));
      expect(YokeError.hasCode(error, "JOURNAL_EVENT_TOO_LARGE")).toBe(true);
      const journaled = await events(journal, "run_big_result");
      expect(() => reduceRun(journaled)).not.toThrow();
      const last = journaled.at(-1)!;
      expect(isEventOfType(last, "run.failed") && last.data).toMatchObject({ code: "JOURNAL_EVENT_TOO_LARGE" });
      expect(await journal.verify({ tenantId: TENANT, runId: "run_big_result" })).toMatchObject({ ok: true });
    } finally {
      await journal.close();
    }
  });

  it("a task too large for run.started: a typed refusal, and no run is written", async () => {
    const journal = await open();
    try {
      const { harness } = rig([say("done")], { journal });
      const error = await rejectionOf(harness.start("t".repeat(40 * 1024), { runId: "run_big_task" }));
      expect(YokeError.hasCode(error, "JOURNAL_EVENT_TOO_LARGE")).toBe(true);
      expect(await journal.head({ tenantId: TENANT, runId: "run_big_task" })).toBeNull();
    } finally {
      await journal.close();
    }
  });
});
