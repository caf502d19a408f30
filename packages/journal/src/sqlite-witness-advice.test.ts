// The ordinary things an operator does to a journal file — delete it, copy it, restore an older
// copy — each get a refusal that names the way out, and the way out works.
import { copyFileSync, existsSync, readdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { YokeError, type RunScope } from "@yoke/protocol";
import { eventDraft, rejectionOf, runStartedDraft } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { tempDirectoryPerTest } from "./__fixtures__/temp-files.js";
import { HeadWitness } from "./head-witness.js";
import { createSqliteJournal, type SqliteJournalOptions } from "./sqlite-journal.js";

const scope: RunScope = { tenantId: "tenant_a", runId: "run_1" };
const directory = tempDirectoryPerTest("yoke-advice-");
const notes = (from: number, count: number) => Array.from({ length: count }, (_, index) => eventDraft("test.noted", { index: from + index }));

async function writeRun(filename: string, events: number): Promise<void> {
  const journal = await createSqliteJournal({ filename });
  const length = (await journal.head(scope))?.length ?? 0;
  if (length === 0) await journal.append(scope, 0, [runStartedDraft()]);
  const now = Math.max(length, 1);
  if (events > now) await journal.append(scope, now, notes(now, events - now));
  await journal.close();
}

async function refusal(options: SqliteJournalOptions): Promise<YokeError> {
  const error = await rejectionOf(createSqliteJournal(options));
  if (!YokeError.isInstance(error)) throw new Error(`expected a typed refusal, got ${String(error)}`);
  return error;
}

function removeDatabase(filename: string): void {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${filename}${suffix}`, { force: true });
}

function journalIdOf(witnessPath: string): string {
  const witness = HeadWitness.read(witnessPath)!;
  witness.close();
  return witness.journalId;
}

describe("sqlite journal: every ordinary action on the file has a way out the refusal names", () => {
  it("deleted database (rm yoke.db): JOURNAL_TRUNCATED advising --new-journal; headWitness 'new' moves the witness aside and starts over", async () => {
    const filename = directory.file("yoke.db");
    await writeRun(filename, 4);
    const oldId = journalIdOf(`${filename}-head`);
    removeDatabase(filename);
    const refused = await refusal({ filename });
    expect(refused.code).toBe("JOURNAL_TRUNCATED");
    expect(refused.message).toBe(
      `${filename} holds no events, but its head witness ${filename}-head records 1 run(s) (run run_1 of tenant tenant_a): the database was deleted or replaced. ` +
        'To start a new journal here, open it with --new-journal (library: headWitness: "new"), which moves the old witness aside; ' +
        "to keep the old journal, restore its database (`yoke backup` copies database and witness together)",
    );
    expect(refused.details).toMatchObject({ witnessCase: "database_deleted", runs: 1 });
    // The refusal stays until the operator chooses: a second plain open says the same.
    expect((await refusal({ filename })).details).toMatchObject({ witnessCase: "database_deleted" });

    const fresh = await createSqliteJournal({ filename, headWitness: "new" });
    expect(fresh.headWitnessSetAside).toBe(`${filename}-head.replaced-${oldId}`);
    expect(await fresh.head(scope)).toBeNull();
    await fresh.append(scope, 0, [runStartedDraft()]);
    await fresh.close();
    // Nothing is discarded: the lost journal's witness, with its run, is where the open said.
    const kept = HeadWitness.read(`${filename}-head.replaced-${oldId}`)!;
    expect(kept.expected(scope)?.length).toBe(4);
    kept.close();
    const reopened = await createSqliteJournal({ filename });
    expect(reopened.headWitnessSetAside).toBeNull();
    expect(await reopened.verify(scope)).toMatchObject({ ok: true, events: 1 });
    await reopened.close();
  });

  it("an emptied database file is the same case, and 'new' writes the new journal into it", async () => {
    const filename = directory.file("yoke.db");
    await writeRun(filename, 2);
    removeDatabase(filename);
    copyFileSync("/dev/null", filename);
    expect((await refusal({ filename })).details).toMatchObject({ witnessCase: "database_deleted" });
    const fresh = await createSqliteJournal({ filename, headWitness: "new" });
    expect(fresh.headWitnessSetAside).toMatch(/yoke\.db-head\.replaced-/);
    await fresh.close();
  });

  it("'new' never replaces a journal that holds runs: CONFIG_INVALID, and the file and witness are untouched", async () => {
    const filename = directory.file("yoke.db");
    await writeRun(filename, 3);
    const refused = await refusal({ filename, headWitness: "new" });
    expect(refused.code).toBe("CONFIG_INVALID");
    expect(refused.message).toBe(
      `${filename} holds 1 run(s): --new-journal (headWitness: "new") starts a journal only where the database was deleted or emptied; open this one without it`,
    );
    const journal = await createSqliteJournal({ filename });
    expect(await journal.verify(scope)).toMatchObject({ ok: true, events: 3 });
    await journal.close();
    expect(readdirSync(dirname(filename)).filter((name) => name.includes("replaced"))).toEqual([]);
  });

  it("copied to a new path without its witness (cp yoke.db copy.db): JOURNAL_WITNESS_INVALID advising --adopt-witness, which opens it", async () => {
    const filename = directory.file("yoke.db");
    const copy = directory.file("copy.db");
    await writeRun(filename, 3);
    copyFileSync(filename, copy);
    const journalId = journalIdOf(`${filename}-head`);
    const refused = await refusal({ filename: copy });
    expect(refused.code).toBe("JOURNAL_WITNESS_INVALID");
    expect(refused.message).toBe(
      `${copy}-head: ${copy} names head witness ${journalId}, but the file is missing: the database was copied without its witness (cp), or the witness was deleted. ` +
        'If this file is a copy you made, open it once with --adopt-witness (library: headWitness: "adopt") to accept it as it is; ' +
        "`yoke backup <db> <dest>` makes copies that open with no flag",
    );
    expect(refused.details).toMatchObject({ witnessCase: "witness_missing", journalId });
    const adopted = await createSqliteJournal({ filename: copy, headWitness: "adopt" });
    expect(adopted.headWitnessSetAside).toBeNull();
    await adopted.append(scope, 3, notes(3, 1));
    await adopted.close();
    const reopened = await createSqliteJournal({ filename: copy });
    expect(await reopened.verify(scope)).toMatchObject({ ok: true, events: 4 });
    await reopened.close();
    // The original is untouched by what happened to its copy.
    const original = await createSqliteJournal({ filename });
    expect(await original.verify(scope)).toMatchObject({ ok: true, events: 3 });
    await original.close();
  });

  it("an older copy restored over the journal: JOURNAL_TRUNCATED advising --adopt-witness, which keeps the newer witness aside", async () => {
    const filename = directory.file("yoke.db");
    const older = directory.file("older.db");
    await writeRun(filename, 2);
    copyFileSync(filename, older);
    await writeRun(filename, 5);
    const journalId = journalIdOf(`${filename}-head`);
    removeDatabase(filename);
    copyFileSync(older, filename);
    const refused = await refusal({ filename });
    expect(refused.code).toBe("JOURNAL_TRUNCATED");
    expect(refused.message).toBe(
      `run run_1: the run has 2 events but its head witness says 5 were acknowledged (${filename}-head): ` +
        "acknowledged events were lost, or an older copy of the database was restored over a newer one. " +
        'If you restored a backup on purpose, open the journal once with --adopt-witness (library: headWitness: "adopt") to accept it as it is (the newer witness is moved aside); ' +
        "otherwise restore the newer database",
    );
    expect(refused.details).toMatchObject({ witnessCase: "older_copy", runId: "run_1", seq: 2 });
    const adopted = await createSqliteJournal({ filename, headWitness: "adopt" });
    expect(adopted.headWitnessSetAside).toBe(`${filename}-head.replaced-${journalId}`);
    expect(await adopted.verify(scope)).toMatchObject({ ok: true, events: 2 });
    await adopted.close();
    const newer = HeadWitness.read(`${filename}-head.replaced-${journalId}`)!;
    expect(newer.expected(scope)?.length).toBe(5);
    newer.close();
    // Adopting again moves nothing: the witness in place already matches.
    const again = await createSqliteJournal({ filename, headWitness: "adopt" });
    expect(again.headWitnessSetAside).toBeNull();
    await again.close();
    expect(readdirSync(dirname(filename)).filter((name) => name.includes("replaced"))).toHaveLength(1);
  });

  it("another journal's witness beside the database: the refusal says so and advises --adopt-witness", async () => {
    const first = directory.file("first.db");
    const second = directory.file("second.db");
    await writeRun(first, 2);
    await writeRun(second, 2);
    const firstId = journalIdOf(`${first}-head`);
    const secondId = journalIdOf(`${second}-head`);
    copyFileSync(`${first}-head`, `${second}-head`);
    const refused = await refusal({ filename: second });
    expect(refused.message).toBe(
      `${second}-head: the head witness belongs to journal ${firstId}, not to this one (${secondId}): the database or its -head file was replaced by another journal's. ` +
        'To accept the database as it is, open it once with --adopt-witness (library: headWitness: "adopt") (the other witness is moved aside)',
    );
    expect(refused.details).toMatchObject({ witnessCase: "other_journal", journalId: secondId, witnessId: firstId });
    const adopted = await createSqliteJournal({ filename: second, headWitness: "adopt" });
    expect(adopted.headWitnessSetAside).toBe(`${second}-head.replaced-${secondId}`);
    await adopted.close();
    expect(existsSync(`${second}-head.replaced-${secondId}`)).toBe(true);
  });

  it("a read-only open cannot adopt or start over: CONFIG_INVALID naming the option", async () => {
    const filename = directory.file("yoke.db");
    await writeRun(filename, 1);
    for (const headWitness of ["adopt", "new"] as const) {
      const refused = await refusal({ filename, readOnly: true, headWitness });
      expect(refused.code).toBe("CONFIG_INVALID");
      expect(refused.details.problems).toEqual([`a read-only journal cannot write a head witness (headWitness: "${headWitness}")`]);
    }
  });
});
