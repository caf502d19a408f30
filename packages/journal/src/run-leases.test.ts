import { runLeaseContractTests } from "@yoke/testkit/contracts";
import { describe, it } from "vitest";
import { tempDirectory } from "./__fixtures__/temp-files.js";
import { createMemoryJournal } from "./memory-journal.js";
import { createSqliteJournal } from "./sqlite-journal.js";

const memoryLeases = runLeaseContractTests("memory", (clock) => ({ journal: createMemoryJournal({ clock }) }));
// A literal describe and it.for, so `vitest list` (a static read of this file) finds the suite.
describe("RunLeasesV1 contract: memory", () => {
  it.for(memoryLeases.tests)("$title", (test) => test.run());
});

const sqliteLeases = runLeaseContractTests(
  "sqlite",
  async (clock) => {
    const directory = tempDirectory();
    const journal = await createSqliteJournal({ filename: directory.file("journal.db"), clock, synchronous: "normal" });
    return { journal, cleanup: () => directory.remove() };
  },
  { numRuns: 30 },
);
// A literal describe and it.for, so `vitest list` (a static read of this file) finds the suite.
describe("RunLeasesV1 contract: sqlite", () => {
  it.for(sqliteLeases.tests)("$title", (test) => test.run());
});
