import { describeRunLeaseContract } from "@yoke/testkit/contracts";
import { tempDirectory } from "./__fixtures__/temp-files.js";
import { createMemoryJournal } from "./memory-journal.js";
import { createSqliteJournal } from "./sqlite-journal.js";

describeRunLeaseContract("memory", (clock) => ({ journal: createMemoryJournal({ clock }) }));

describeRunLeaseContract(
  "sqlite",
  async (clock) => {
    const directory = tempDirectory();
    const journal = await createSqliteJournal({ filename: directory.file("journal.db"), clock, synchronous: "normal" });
    return { journal, cleanup: () => directory.remove() };
  },
  { numRuns: 30 },
);
