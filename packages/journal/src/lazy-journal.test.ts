import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { RunScope } from "@yoke/protocol";
import { eventDraft, rejectionOf, runStartedDraft } from "@yoke/testkit";
import { journalContractTests, runLeaseContractTests } from "@yoke/testkit/contracts";
import { describe, expect, it } from "vitest";
import { tempDirectory, tempDirectoryPerTest } from "./__fixtures__/temp-files.js";
import { createLazySqliteJournal } from "./lazy-journal.js";
import { createSqliteJournal } from "./sqlite-journal.js";

// The whole JournalV1 contract, and the lease contract, through the lazy wrapper: it forwards
// every member (append options and leases included), not only the ones the harness uses.
const journalContract = journalContractTests("lazy sqlite", () => {
  const directory = tempDirectory();
  return { journal: createLazySqliteJournal({ filename: directory.file("journal.db") }), cleanup: () => directory.remove() };
});
// A literal describe and it.for, so `vitest list` (a static read of this file) finds the suite.
describe("JournalV1 contract: lazy sqlite", () => {
  it.for(journalContract.tests)("$title", (test) => test.run());
});
const leaseContract = runLeaseContractTests(
  "lazy sqlite",
  (clock) => {
    const directory = tempDirectory();
    return {
      journal: createLazySqliteJournal({ filename: directory.file("journal.db"), storeClock: clock, synchronous: "normal" }),
      cleanup: () => directory.remove(),
    };
  },
  { numRuns: 20 },
);
// A literal describe and it.for, so `vitest list` (a static read of this file) finds the suite.
describe("RunLeasesV1 contract: lazy sqlite", () => {
  it.for(leaseContract.tests)("$title", (test) => test.run());
});

const scope: RunScope = { tenantId: "tenant_a", runId: "run_1" };

describe("createLazySqliteJournal", () => {
  const files = tempDirectoryPerTest();

  it("opens nothing until first used, and closing unused creates no file", async () => {
    const filename = files.file("journal.db");
    const journal = createLazySqliteJournal({ filename });
    expect(journal.capabilities).toEqual({ durable: true, multiProcess: true });
    expect(journal.leases).toBeDefined();
    expect(existsSync(filename)).toBe(false);
    await journal.close();
    expect(existsSync(filename)).toBe(false);
    expect(await rejectionOf(journal.head(scope))).toMatchObject({ code: "JOURNAL_CLOSED" });
  });

  it("writes a journal the eager SQLite journal reads back", async () => {
    const filename = files.file("journal.db");
    const lazy = createLazySqliteJournal({ filename });
    await lazy.append(scope, 0, [runStartedDraft(), eventDraft("test.noted", { index: 1 })]);
    await lazy.close();
    const eager = await createSqliteJournal({ filename });
    expect(await eager.verify(scope)).toMatchObject({ ok: true, events: 2 });
    await eager.close();
  });

  it("surfaces an open failure as the typed error on first use, from every call", async () => {
    const filename = files.file("not-a-journal.db");
    writeFileSync(filename, "this is not a SQLite file, it is long enough to have a header of one ".repeat(4));
    const journal = createLazySqliteJournal({ filename });
    expect(await rejectionOf(journal.head(scope))).toMatchObject({ name: "YokeError", code: "JOURNAL_CORRUPT" });
    expect(await rejectionOf(journal.leases!.current(scope))).toMatchObject({ code: "JOURNAL_CORRUPT" });
    const reading = (async () => {
      for await (const _ of journal.read(scope)) void _;
    })();
    expect(await rejectionOf(reading)).toMatchObject({ code: "JOURNAL_CORRUPT" });
    await journal.close();
  });

  it("with create: false, creates a missing file only when opened with createIfMissing, even while a plain open is under way", async () => {
    const filename = files.file("journal.db");
    const journal = createLazySqliteJournal({ filename, create: false });
    expect(await rejectionOf(journal.head(scope))).toMatchObject({ code: "JOURNAL_NOT_INITIALIZED", details: { filename } });
    expect(existsSync(filename)).toBe(false);
    // The refusal is not remembered: the journal may be created later.
    const plain = journal.head(scope);
    const creating = journal.open({ createIfMissing: true });
    expect(await rejectionOf(plain)).toMatchObject({ code: "JOURNAL_NOT_INITIALIZED" });
    await creating;
    expect(existsSync(filename)).toBe(true);
    expect(await journal.head(scope)).toBeNull();
    await journal.open();
    await journal.close();
  });

  it("createIfMissing never writes a journal into an existing empty file", async () => {
    const filename = files.file("journal.db");
    writeFileSync(filename, "");
    const journal = createLazySqliteJournal({ filename, create: false });
    expect(await rejectionOf(journal.open({ createIfMissing: true }))).toMatchObject({ code: "JOURNAL_NOT_INITIALIZED" });
    await journal.close();
  });

  it("refuses a missing filename with CONFIG_INVALID", () => {
    expect(() => createLazySqliteJournal({ filename: "" })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });
});

describe("without better-sqlite3 installed", () => {
  // A child process whose module resolution cannot find better-sqlite3, as in a project that
  // never installed it: Node's own resolver fails (a registerHooks resolve hook refuses the
  // name), and the journal's dist code meets that real ERR_MODULE_NOT_FOUND.
  it("opening fails with DEPENDENCY_MISSING naming the package to install", () => {
    const directory = tempDirectory();
    try {
      const script = join(directory.path, "no-driver.mjs");
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
const { createSqliteJournal, createLazySqliteJournal } = await import(${JSON.stringify(pathToFileURL(join(import.meta.dirname, "../dist/index.js")).href)});
const describe = (error) => ({ name: error.name, code: error.code, message: error.message, details: error.details });
const out = {};
try { await createSqliteJournal({ filename: ${JSON.stringify(join(directory.path, "a.db"))} }); } catch (error) { out.eager = describe(error); }
const lazy = createLazySqliteJournal({ filename: ${JSON.stringify(join(directory.path, "b.db"))} });
try { await lazy.head({ tenantId: "t", runId: "r" }); } catch (error) { out.lazy = describe(error); }
console.log(JSON.stringify(out));
`,
      );
      const out = JSON.parse(execFileSync(process.execPath, [script], { encoding: "utf8" })) as Record<string, unknown>;
      for (const failure of [out.eager, out.lazy]) {
        expect(failure).toMatchObject({ name: "YokeError", code: "DEPENDENCY_MISSING", details: { package: "better-sqlite3" } });
        expect((failure as { message: string }).message).toContain("npm install better-sqlite3");
      }
    } finally {
      directory.remove();
    }
  });
});
