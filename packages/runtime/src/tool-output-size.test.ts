// How many copies of a big tool output reach the journal file: one, at most.
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import { sequentialIdSource, steppingClock } from "@yoke/protocol";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { TENANT, instantSleep } from "./__fixtures__/harness-fixtures.js";
import { defineTool } from "./define-tool.js";
import { createHarness } from "./harness.js";

const root = mkdtempSync(join(tmpdir(), "yoke-output-size-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A tool whose text output is `bytes` bytes of ASCII lines. */
function dumpTool(bytes: number) {
  const line = "0123456789abcdefghijklmnopqrstuvwxyz-log-line-of-a-very-chatty-build-step\n";
  const text = line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
  const tool = defineTool({ name: "dump", description: "Dumps a big log.", input: z.object({}), sideEffect: "none", execute: async () => text });
  return { tool, text };
}

/** Bytes of a SQLite journal on disk: the database and its WAL. */
function bytesOnDisk(directory: string): number {
  return readdirSync(directory).reduce((sum, name) => sum + statSync(join(directory, name)).size, 0);
}

describe("tool output in the journal: one copy", () => {
  it("a 5 MB output under the event limit is stored once: the database is < 1.1× the output", async () => {
    const dir = mkdtempSync(join(root, "inline-"));
    const journal = await createSqliteJournal({ filename: join(dir, "run.sqlite") });
    const { tool, text } = dumpTool(5_000_000);
    const model = createScriptedModel([callTools([{ name: "dump", args: {} }]), say("done")]);
    const harness = createHarness({
      journal, provider: model, tools: [tool], tenantId: TENANT,
      clock: steppingClock(1_000, 1), ids: sequentialIdSource(), sleep: instantSleep,

    });
    const result = await harness.start("Dump the log.");
    expect(result.outcome.status).toBe("verified_success");
    await journal.close();
    expect(bytesOnDisk(dir)).toBeLessThan(text.length * 1.1);
  });
});
