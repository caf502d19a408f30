import { copyFileSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { YokeError, type RunScope } from "@yoke/protocol";
import { eventDraft, rejectionOf, runStartedDraft } from "@yoke/testkit";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { tempDirectoryPerTest } from "./__fixtures__/temp-files.js";
import { startWorker } from "./__fixtures__/worker-process.js";
import { HeadWitness } from "./head-witness.js";
import { backupSqliteJournal } from "./sqlite-backup.js";
import { createSqliteJournal } from "./sqlite-journal.js";

const shared: RunScope = { tenantId: "tenant_a", runId: "run_shared" };
const scope: RunScope = { tenantId: "tenant_a", runId: "run_1" };
const directory = tempDirectoryPerTest("yoke-backup-");
const notes = (from: number, count: number) => Array.from({ length: count }, (_, index) => eventDraft("test.noted", { index: from + index }));

async function writeRun(filename: string, events: number): Promise<void> {
  const journal = await createSqliteJournal({ filename });
  await journal.append(scope, 0, [runStartedDraft()]);
  if (events > 1) await journal.append(scope, 1, notes(1, events - 1));
  await journal.close();
}

describe("backupSqliteJournal: a copy whose witness matches it", () => {
  it("copies while another process writes; the copy opens with no option, is a prefix of the source, and its run goes on", async () => {
    const filename = directory.file("yoke.db");
    const copy = directory.file("backup.db");
    await writeRun(filename, 3);
    const writer = await startWorker("append-worker.ts", [filename, "w1", "400"]);
    const done = writer.release();
    const reader = await createSqliteJournal({ filename, readOnly: true });
    // Back up once the writer is under way (its appends visible), while it still writes.
    let seenBefore = 0;
    while (seenBefore < 20) seenBefore = (await reader.head(shared))?.length ?? 0;
    const backup = await backupSqliteJournal(filename, copy);
    await reader.close();
    const report = JSON.parse(await done) as { appended: number[] };
    expect(report.appended).toHaveLength(400);

    expect(backup).toMatchObject({ filename: copy, headWitnessPath: `${copy}-head`, runs: 2 });
    const opened = await createSqliteJournal({ filename: copy });
    const copied = (await opened.verify(shared)) as { ok: true; events: number; headHash: string };
    expect(copied.ok).toBe(true);
    expect(copied.events).toBeGreaterThanOrEqual(seenBefore);
    expect(backup.events).toBe(copied.events + 3);
    // The same events as the source up to the copy's head: a snapshot, not a mix.
    const source = await createSqliteJournal({ filename, readOnly: true });
    expect((await source.verify(shared)) as { events: number }).toMatchObject({ ok: true, events: 401 });
    let sourceHash: string | undefined;
    for await (const event of source.read(shared, { fromSeq: copied.events - 1, toSeq: copied.events })) sourceHash = event.hash;
    expect(sourceHash).toBe(copied.headHash);
    await source.close();
    // The copy is a journal of its own now: its run goes on there.
    await opened.append(shared, copied.events, notes(copied.events, 1));
    expect(await opened.verify(shared)).toMatchObject({ ok: true, events: copied.events + 1 });
    await opened.close();
  });

  it("restored over the original (database and -head together) it opens with no option", async () => {
    const filename = directory.file("yoke.db");
    const copy = directory.file("backup.db");
    await writeRun(filename, 3);
    await backupSqliteJournal(filename, copy);
    const later = await createSqliteJournal({ filename });
    await later.append(scope, 3, notes(3, 4));
    await later.close();
    for (const suffix of ["", "-wal", "-shm", "-head"]) rmSync(`${filename}${suffix}`, { force: true });
    copyFileSync(copy, filename);
    copyFileSync(`${copy}-head`, `${filename}-head`);
    const restored = await createSqliteJournal({ filename });
    expect(await restored.verify(scope)).toMatchObject({ ok: true, events: 3 });
    await restored.close();
  });

  it("never overwrites: an existing destination or -head is CONFIG_INVALID, and so is the journal itself", async () => {
    const filename = directory.file("yoke.db");
    const copy = directory.file("backup.db");
    await writeRun(filename, 2);
    writeFileSync(`${copy}-head`, "mine");
    const refused = await rejectionOf(backupSqliteJournal(filename, copy));
    expect(refused).toMatchObject({ code: "CONFIG_INVALID", message: `backup: ${copy}-head exists; a backup never overwrites a file` });
    expect(existsSync(copy)).toBe(false);
    expect((await rejectionOf(backupSqliteJournal(filename, filename)))?.code).toBe("CONFIG_INVALID");
    expect((await rejectionOf(backupSqliteJournal(directory.file("none.db"), directory.file("x.db"))))?.code).toBe("JOURNAL_NOT_INITIALIZED");
  });

  it("refuses to back up a journal that lost acknowledged events (JOURNAL_TRUNCATED): a backup never launders a loss", async () => {
    const filename = directory.file("yoke.db");
    const copy = directory.file("backup.db");
    await writeRun(filename, 4);
    const db = new Database(filename);
    db.prepare("DELETE FROM events WHERE seq >= 2").run();
    db.close();
    const refused = await rejectionOf(backupSqliteJournal(filename, copy));
    expect(YokeError.isInstance(refused) && refused.code).toBe("JOURNAL_TRUNCATED");
    expect(existsSync(copy)).toBe(false);
    expect(existsSync(`${copy}-head`)).toBe(false);
    const witness = HeadWitness.read(`${filename}-head`)!;
    expect(witness.expected(scope)?.length).toBe(4);
    witness.close();
  });
});
