// A harness on a journal path never invents a journal where one should be: after the
// database, its -wal and its head witness were deleted, `startOrResume` refuses instead of
// starting the run again (and repeating its effects), and `resume` leaves no file behind.
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sequentialIdSource, steppingClock } from "@yoke/protocol";
import { callTools, createScriptedModel, rejectionOf, say } from "@yoke/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { createHarness } from "./harness.js";

describe("journal: a path that holds no journal", () => {
  let directory: string;
  let charges: string[];
  const charge = defineTool({
    name: "charge",
    description: "Charges the card once per call.",
    input: z.object({ cents: z.number() }),
    sideEffect: "idempotent",
    execute: async ({ cents }, context) => {
      charges.push(`${context.actionId}:${cents}`);
      return "charged";
    },
  });
  const script = () => createScriptedModel([callTools([{ name: "charge", args: { cents: 500 } }]), say("charged 5.00")]);
  const harnessOn = (filename: string) =>
    createHarness({ journal: filename, provider: script(), tools: [charge], clock: steppingClock(1_000, 1), ids: sequentialIdSource() });

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "yoke-journal-missing-"));
    charges = [];
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it("startOrResume after the database, -wal and witness were deleted: JOURNAL_NOT_INITIALIZED, no second charge, no file", async () => {
    const filename = join(directory, "yoke.db");
    const first = harnessOn(filename);
    expect((await first.startOrResume("Charge 5.00.", { runId: "run_pay", createJournal: true })).outcome?.status).toBe("completed");
    await first.close();
    expect(charges).toHaveLength(1);
    for (const suffix of ["", "-wal", "-shm", "-head"]) rmSync(`${filename}${suffix}`, { force: true });

    const again = harnessOn(filename);
    const error = await rejectionOf(again.startOrResume("Charge 5.00.", { runId: "run_pay" }));
    expect(error).toMatchObject({ name: "YokeError", code: "JOURNAL_NOT_INITIALIZED", details: { filename } });
    expect(error.message).toMatch(/createJournal: true/);
    expect(charges).toHaveLength(1);
    expect(readdirSync(directory)).toEqual([]);
    // A start is a new run by definition: it may create the journal, and this harness still can.
    expect((await again.start("Charge 5.00.", { runId: "run_other" })).outcome?.status).toBe("completed");
    expect(charges).toHaveLength(2);
    await again.close();
  });

  it("resume on a missing path: JOURNAL_NOT_INITIALIZED and nothing left behind; so are getState and events", async () => {
    const filename = join(directory, "never.db");
    const harness = harnessOn(filename);
    expect(await rejectionOf(harness.resume("run_pay"))).toMatchObject({ code: "JOURNAL_NOT_INITIALIZED", details: { filename } });
    expect(await rejectionOf(harness.getState("run_pay"))).toMatchObject({ code: "JOURNAL_NOT_INITIALIZED" });
    expect(existsSync(filename)).toBe(false);
    expect(readdirSync(directory)).toEqual([]);
    expect(charges).toEqual([]);
    await harness.close();
  });

  it("startOrResume with createJournal: true starts a first run on a new path, and resumes it later without the flag", async () => {
    const filename = join(directory, "fresh.db");
    const first = harnessOn(filename);
    expect((await first.startOrResume("Charge 5.00.", { runId: "run_pay", createJournal: true })).outcome?.status).toBe("completed");
    await first.close();
    const second = harnessOn(filename);
    // Finished: the outcome comes back from the journal, nothing runs again.
    expect((await second.startOrResume("Charge 5.00.", { runId: "run_pay" })).outcome?.status).toBe("completed");
    expect(charges).toHaveLength(1);
    await second.close();
  });

  it("refuses a createJournal that is not a boolean", async () => {
    const harness = harnessOn(join(directory, "x.db"));
    expect(await rejectionOf(harness.startOrResume("t", { runId: "run_1", createJournal: "yes" as unknown as boolean }))).toMatchObject({
      code: "CONFIG_INVALID",
      details: { option: "createJournal" },
    });
    await harness.close();
  });
});
