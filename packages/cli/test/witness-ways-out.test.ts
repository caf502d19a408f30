// The head witness and the ordinary things an operator does to a journal file: each refusal
// names the flag that gets out of it, the flag works, and `yoke backup` makes copies that need none.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { completedRun, copyJournal, crashedRun, removeJournals } from "./support/journals.ts";
import { runYoke } from "./support/run-yoke.ts";

const scratch = mkdtempSync(join(tmpdir(), "yoke-witness-cli-"));
afterAll(() => {
  removeJournals();
  rmSync(scratch, { recursive: true, force: true });
});

function journalIdOf(witness: string): string {
  return (JSON.parse(readFileSync(witness, "utf8").split("\n")[0]!) as { journalId: string }).journalId;
}

describe("yoke: ways out of a head-witness refusal", { timeout: 240_000 }, () => {
  it("backup: a copy of a crashed run, taken with its witness, opens with no flag and the run is resumed there", async () => {
    const crashed = await crashedRun({ fresh: true });
    const dest = join(scratch, "backup.sqlite");
    const backup = await runYoke(["backup", crashed.file, dest]);
    expect(backup.stderr).toBe("");
    expect(backup.code).toBe(0);
    expect(backup.stdout).toMatch(
      new RegExp(
        `^backed up ${literal(crashed.file)}: 1 run\\(s\\), \\d+ event\\(s\\)\n  to ${literal(dest)}\n  with its head witness ${literal(dest)}-head \\(restore both together; the copy opens with no flag\\)\n$`,
      ),
    );
    const harness = fileURLToPath(new URL("./support/resume-harness.ts", import.meta.url));
    const resumed = await runYoke(["resume", "run_cli", "--harness", harness, "--journal", dest], { env: { YOKE_TEST_WORKSPACE: crashed.workspace } });
    expect(resumed.stderr).toBe("");
    expect(resumed.stdout).toBe("run run_cli: verified_success after 5 turns\n");
    // The original is as the crash left it.
    const original = await runYoke(["runs", "--journal", crashed.file, "--json"]);
    expect(JSON.parse(original.stdout).runs[0]).toMatchObject({ status: "running" });
    // With one argument the journal is --journal; an existing destination is refused, never overwritten.
    const again = await runYoke(["backup", dest, "--journal", crashed.file]);
    expect(again.code).toBe(4);
    expect(again.stderr).toBe(`yoke: CONFIG_INVALID: backup: ${dest} exists; a backup never overwrites a file\n`);
  });

  it("cp yoke.sqlite copy.sqlite: the copy is refused with advice to --adopt-witness, which opens it and says what it did", async () => {
    const completed = await completedRun();
    const copy = join(scratch, "copy.sqlite");
    copyFileSync(completed.file, copy);
    const journalId = journalIdOf(`${completed.file}-head`);
    const refused = await runYoke(["runs", "--journal", copy]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `yoke: JOURNAL_WITNESS_INVALID: ${copy}-head: ${copy} names head witness ${journalId}, but the file is missing: the database was copied without its witness (cp), or the witness was deleted. ` +
        'If this file is a copy you made, open it once with --adopt-witness (library: headWitness: "adopt") to accept it as it is; `yoke backup <db> <dest>` makes copies that open with no flag\n',
    );
    const adopted = await runYoke(["runs", "--journal", copy, "--adopt-witness"]);
    expect(adopted.code).toBe(0);
    expect(adopted.stderr).toBe(`yoke: accepted ${copy} as it is; its head witness is ${copy}-head\n`);
    expect(adopted.stdout).toContain("run_cli");
    const plain = await runYoke(["runs", "--journal", copy]);
    expect([plain.code, plain.stderr]).toEqual([0, ""]);
  });

  it("rm yoke.sqlite: the next open names the lost run and advises --new-journal, which starts over and says where the old witness went", async () => {
    const gone = copyJournal(await completedRun(), "deleted");
    const journalId = journalIdOf(`${gone.file}-head`);
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${gone.file}${suffix}`, { force: true });
    const advice =
      `yoke: JOURNAL_NOT_INITIALIZED: no journal at ${gone.file}, but its head witness ${gone.file}-head is there: the database was deleted. ` +
      "To start a new journal here, pass --new-journal (the old witness is moved aside); to keep the old journal, restore its database\n";
    const refused = await runYoke(["runs", "--journal", gone.file]);
    expect([refused.code, refused.stderr]).toEqual([3, advice]);
    const worker = await runYoke([
      "worker",
      "--once",
      "--harness",
      fileURLToPath(new URL("./support/worker-harness.ts", import.meta.url)),
      "--journal",
      gone.file,
    ]);
    expect([worker.code, worker.stderr]).toEqual([3, advice]);
    const fresh = await runYoke(["runs", "--journal", gone.file, "--new-journal"]);
    expect(fresh.code).toBe(0);
    expect(fresh.stderr).toBe(
      `yoke: started a new journal at ${gone.file}; the old head witness, which names the lost runs, is at ${gone.file}-head.replaced-${journalId}\n`,
    );
    expect(fresh.stdout).toBe(`no runs in ${gone.file}\n`);
    expect(existsSync(`${gone.file}-head.replaced-${journalId}`)).toBe(true);
    const plain = await runYoke(["runs", "--journal", gone.file]);
    expect([plain.code, plain.stdout]).toEqual([0, `no runs in ${gone.file}\n`]);
  });

  it("a deleted database that a program re-created empty: JOURNAL_TRUNCATED naming the run and --new-journal", async () => {
    const gone = copyJournal(await completedRun(), "recreated");
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${gone.file}${suffix}`, { force: true });
    // What a harness's start does on a journal path: create the file, then meet the witness.
    const harness = fileURLToPath(new URL("./support/worker-harness.ts", import.meta.url));
    copyFileSync("/dev/null", gone.file);
    const refused = await runYoke(["worker", "--once", "--harness", harness, "--journal", gone.file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `yoke: JOURNAL_TRUNCATED: ${gone.file} holds no events, but its head witness ${gone.file}-head records 1 run(s) (run run_cli of tenant tenant_cli): the database was deleted or replaced. ` +
        'To start a new journal here, open it with --new-journal (library: headWitness: "new"), which moves the old witness aside; to keep the old journal, restore its database (`yoke backup` copies database and witness together)\n',
    );
  });

  it("an older copy restored over the journal: refused with advice to --adopt-witness, which keeps the newer witness aside", async () => {
    const crashed = copyJournal(await crashedRun(), "restored");
    const older = join(scratch, "older.sqlite");
    expect((await runYoke(["backup", crashed.file, older])).code).toBe(0);
    const harness = fileURLToPath(new URL("./support/resume-harness.ts", import.meta.url));
    expect(
      (await runYoke(["resume", "run_cli", "--harness", harness, "--journal", crashed.file], { env: { YOKE_TEST_WORKSPACE: crashed.workspace } })).code,
    ).toBe(0);
    const journalId = journalIdOf(`${crashed.file}-head`);
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${crashed.file}${suffix}`, { force: true });
    copyFileSync(older, crashed.file);
    const refused = await runYoke(["runs", "--journal", crashed.file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^yoke: JOURNAL_TRUNCATED: run run_cli: the run has \\d+ events but its head witness says \\d+ were acknowledged \\(${literal(crashed.file)}-head\\): ` +
          literal(
            'acknowledged events were lost, or an older copy of the database was restored over a newer one. If you restored a backup on purpose, open the journal once with --adopt-witness (library: headWitness: "adopt") to accept it as it is (the newer witness is moved aside); otherwise restore the newer database',
          ) +
          "\n$",
      ),
    );
    const adopted = await runYoke(["runs", "--journal", crashed.file, "--adopt-witness", "--json"]);
    expect(adopted.stderr).toBe(
      `yoke: accepted ${crashed.file} as it is; its head witness is ${crashed.file}-head; the one it replaced is at ${crashed.file}-head.replaced-${journalId}\n`,
    );
    expect(JSON.parse(adopted.stdout).runs[0]).toMatchObject({ runId: "run_cli", status: "running" });
    const both = await runYoke(["runs", "--journal", crashed.file, "--adopt-witness", "--new-journal"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe("yoke: CONFIG_INVALID: pass --adopt-witness or --new-journal, not both\n");
  });
});

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
