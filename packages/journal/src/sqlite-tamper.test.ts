import { describeJournalTamperSuite } from "@yoke/testkit/contracts";
import { sqliteTamperSubject } from "./__fixtures__/sqlite-tamper.js";
import { tempDirectoryPerTest } from "./__fixtures__/temp-files.js";
import { testKeys } from "./__fixtures__/test-keys.js";

const directory = tempDirectoryPerTest("yoke-tamper-");

describeJournalTamperSuite(
  "sqlite, synchronous full",
  sqliteTamperSubject(() => directory.file("")),
);
describeJournalTamperSuite(
  "sqlite, synchronous normal",
  sqliteTamperSubject(() => directory.file(""), { synchronous: "normal" }),
);
describeJournalTamperSuite(
  "sqlite, keyed, synchronous full",
  sqliteTamperSubject(() => directory.file(""), { keys: testKeys().provider }),
);

// A keyed chain alone, with no head witness: edits and forgeries are caught, lost tails are not.
const keyedOnly = sqliteTamperSubject(() => directory.file(""), { keys: testKeys().provider, headWitness: "none" });
describeJournalTamperSuite("sqlite, keyed, no head witness", {
  ...keyedOnly,
  tamper: { forgeRow: keyedOnly.tamper.forgeRow!, swapRows: keyedOnly.tamper.swapRows! },
});
