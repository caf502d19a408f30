// The adopter's trial: a harness on a journal path, `rm yoke.db`, and the next start. The
// refusal names the run the lost database held and the way to start over; taking that way
// (once, from the library or `yoke --new-journal`) lets the harness start again.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import { sequentialIdSource, steppingClock } from "@yoke/protocol";
import { createScriptedModel, rejectionOf, say } from "@yoke/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHarness } from "./harness.js";

describe("journal path: the database deleted under its head witness", () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "yoke-journal-witness-"));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));
  const harnessOn = (filename: string) =>
    createHarness({ journal: filename, provider: createScriptedModel([say("done")]), tools: [], clock: steppingClock(1_000, 1), ids: sequentialIdSource() });

  it("start after rm yoke.db: JOURNAL_TRUNCATED naming the lost run and --new-journal; after it, start works", async () => {
    const filename = join(directory, "yoke.db");
    const first = harnessOn(filename);
    expect((await first.start("t", { runId: "run_lost" })).outcome?.status).toBe("completed");
    await first.close();
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${filename}${suffix}`, { force: true });

    const refused = await rejectionOf(harnessOn(filename).start("t", { runId: "run_next" }));
    expect(refused.code).toBe("JOURNAL_TRUNCATED");
    expect(refused.message).toBe(
      `${filename} holds no events, but its head witness ${filename}-head records 1 run(s) (run run_lost of tenant default): the database was deleted or replaced. ` +
        'To start a new journal here, open it with --new-journal (library: headWitness: "new"), which moves the old witness aside; ' +
        "to keep the old journal, restore its database (`yoke backup` copies database and witness together)",
    );
    const fresh = await createSqliteJournal({ filename, headWitness: "new" });
    expect(existsSync(fresh.headWitnessSetAside!)).toBe(true);
    await fresh.close();
    const again = harnessOn(filename);
    expect((await again.start("t", { runId: "run_next" })).outcome?.status).toBe("completed");
    await again.close();
  });
});
