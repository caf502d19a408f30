import { describeJournalTamperSuite } from "@yoke/testkit/contracts";
import { sqliteTamperSubject } from "./__fixtures__/sqlite-tamper.js";
import { tempDirectoryPerTest } from "./__fixtures__/temp-files.js";

const directory = tempDirectoryPerTest("yoke-tamper-");

describeJournalTamperSuite("sqlite, synchronous full", sqliteTamperSubject(() => directory.file("")));
describeJournalTamperSuite("sqlite, synchronous normal", sqliteTamperSubject(() => directory.file(""), { synchronous: "normal" }));
