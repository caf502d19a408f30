// `createHarness({ journal: "./yoke.db" })`: a path opens a real SQLite journal on first use
// (createHarness stays synchronous), `harness.close()` closes it, and a second harness on the
// same path resumes and reads back what the first one wrote.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { YokeError, sequentialIdSource, steppingClock } from "@yoke/protocol";
import { createSqliteJournal } from "@yoke/journal";
import { callTools, createScriptedModel, failWith, rejectionOf, say } from "@yoke/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { createHarness } from "./harness.js";

const echo = defineTool({
  name: "echo",
  description: "Echoes text.",
  input: z.object({ text: z.string() }),
  sideEffect: "none",
  execute: async ({ text }) => text,
});

describe("journal: a SQLite file path", () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "yoke-journal-path-"));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it("runs, closes, and a second harness on the same path resumes the run and reads it back", async () => {
    const filename = join(directory, "yoke.db");
    const first = createHarness({
      journal: filename,
      provider: createScriptedModel([callTools([{ name: "echo", args: { text: "hi" } }]), failWith(new YokeError("PROVIDER_REQUEST_INVALID", "bad request"))]),
      tools: [echo],
      clock: steppingClock(1_000, 1),
      ids: sequentialIdSource(),
    });
    expect(existsSync(filename)).toBe(false); // nothing opened by createHarness
    expect((await rejectionOf(first.start("Say hi through echo.", { runId: "run_1" }))).code).toBe("PROVIDER_REQUEST_INVALID");
    const written = [];
    for await (const event of first.events("run_1")) written.push(event.type);
    expect(written).toContain("action.committed");
    expect(written.at(-1)).toBe("run.failed");
    await first.close();
    expect(await rejectionOf(first.getState("run_1"))).toMatchObject({ code: "JOURNAL_CLOSED" });

    const model = createScriptedModel([say("done")]);
    const second = createHarness({ journal: filename, provider: model, tools: [echo], clock: steppingClock(5_000, 1), ids: sequentialIdSource(100) });
    const result = await second.resume("run_1");
    expect(result.outcome?.status).toBe("completed");
    expect(result.text).toBe("done");
    model.assertConsumed();
    const readBack = [];
    for await (const event of second.events("run_1")) readBack.push(event.type);
    expect(readBack.slice(0, written.length)).toEqual(written);
    expect(readBack.at(-1)).toBe("run.completed");
    await second.close();

    // The file is an ordinary SQLite journal: the eager store verifies the whole chain.
    const journal = await createSqliteJournal({ filename });
    expect(await journal.verify({ tenantId: "default", runId: "run_1" })).toMatchObject({ ok: true, events: readBack.length });
    await journal.close();
  });

  it("an open failure is the typed error of the first call that needs the journal", async () => {
    const filename = join(directory, "not-a-journal.db");
    writeFileSync(filename, "not a SQLite file at all, but long enough to have a header ".repeat(4));
    const harness = createHarness({ journal: filename, provider: createScriptedModel([]) });
    expect(await rejectionOf(harness.start("t"))).toMatchObject({ name: "YokeError", code: "JOURNAL_CORRUPT" });
    await harness.close();
  });

  it("refuses an empty path with CONFIG_INVALID", () => {
    expect(() => createHarness({ journal: "", provider: createScriptedModel([]) })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });

  it("close() leaves a journal passed in as an object open", async () => {
    const journal = await createSqliteJournal({ filename: join(directory, "mine.db") });
    const harness = createHarness({ journal, provider: createScriptedModel([say("done")]) });
    await harness.start("t", { runId: "run_2" });
    await harness.close();
    expect(await journal.head({ tenantId: "default", runId: "run_2" })).not.toBeNull();
    await journal.close();
  });

  it("without better-sqlite3 installed: DEPENDENCY_MISSING naming the package, on first use", () => {
    // A child process whose module resolution cannot find better-sqlite3 (a registerHooks
    // resolve hook refuses it, as Node's resolver does when it is not installed).
    const script = join(directory, "no-driver.mjs");
    writeFileSync(
      script,
      `import { registerHooks } from "node:module";
registerHooks({
  resolve(specifier, context, next) {
    if (specifier === "better-sqlite3" || specifier.startsWith("better-sqlite3/")) {
      const error = new Error("Cannot find package '" + specifier + "'");
      error.code = "ERR_MODULE_NOT_FOUND";
      throw error;
    }
    return next(specifier, context);
  },
});
const { createHarness } = await import(${JSON.stringify(pathToFileURL(join(import.meta.dirname, "../dist/index.js")).href)});
const { createScriptedModel, say } = await import(${JSON.stringify(pathToFileURL(join(import.meta.dirname, "../node_modules/@yoke/testkit/dist/index.js")).href)});
const harness = createHarness({ journal: ${JSON.stringify(join(directory, "yoke.db"))}, provider: createScriptedModel([say("done")]) });
try { await harness.start("t"); console.log(JSON.stringify({ started: true })); }
catch (error) { console.log(JSON.stringify({ name: error.name, code: error.code, message: error.message, details: error.details })); }
`,
    );
    const out = JSON.parse(execFileSync(process.execPath, [script], { encoding: "utf8" })) as Record<string, unknown>;
    expect(out).toMatchObject({ name: "YokeError", code: "DEPENDENCY_MISSING", details: { package: "better-sqlite3" } });
    expect(out.message).toContain("npm install better-sqlite3");
  });
});
