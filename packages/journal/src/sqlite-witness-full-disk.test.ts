// The head witness on a real full file system: a small tmpfs this suite mounts (as root; CI
// runs as root) and fills. A witness line torn by ENOSPC must not brick the journal once space
// returns, and no recovery may cost the witness what it protects against.
import { execFileSync } from "node:child_process";
import {
  closeSync,
  copyFileSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  statfsSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { YokeError, type RunScope } from "@yoke/protocol";
import { eventDraft, rejectionOf, runStartedDraft } from "@yoke/testkit";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HeadWitness } from "./head-witness.js";
import { createSqliteJournal } from "./sqlite-journal.js";

const PAGE = 4096;
const scope: RunScope = { tenantId: "tenant_a", runId: "run_1" };
const note = (index: number) => [eventDraft("test.noted", { index })];

/** Why this suite cannot run here, or undefined: it mounts a tmpfs, which needs root. */
const cannotMount = typeof process.getuid === "function" && process.getuid() === 0 ? undefined : "mounting a tmpfs needs root (CI runs these tests as root)";
if (cannotMount !== undefined) process.stderr.write(`sqlite-witness-full-disk.test.ts: SKIPPED, ${cannotMount}\n`);

let mountPoint = "";
let mounted = false;
beforeAll(() => {
  if (cannotMount !== undefined) return;
  mountPoint = mkdtempSync(join(tmpdir(), "yoke-full-disk-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint]);
  mounted = true;
});
afterAll(() => {
  if (mounted) execFileSync("umount", [mountPoint]);
  if (mountPoint !== "") rmSync(mountPoint, { recursive: true, force: true });
});

/** Fills the file system: a file grown until ENOSPC. `leavePages` pages are then given back. */
function fillDisk(directory: string, leavePages = 0): string {
  const filler = join(directory, "filler");
  const fd = openSync(filler, "w");
  const chunk = Buffer.alloc(PAGE, 1);
  let size = 0;
  try {
    for (;;) {
      const written = writeSync(fd, chunk);
      size += written;
      if (written < chunk.length) break;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  }
  if (leavePages > 0) ftruncateSync(fd, Math.max(0, size - leavePages * PAGE));
  closeSync(fd);
  expect(statfsSync(directory).bfree).toBe(leavePages);
  return filler;
}

function raw<T>(filename: string, use: (db: Database.Database) => T): T {
  const db = new Database(filename);
  try {
    return use(db);
  } finally {
    db.close();
  }
}

async function codeOfOpen(filename: string): Promise<string | undefined> {
  try {
    await (await createSqliteJournal({ filename })).close();
    return undefined;
  } catch (error) {
    if (!YokeError.isInstance(error)) throw error;
    return error.code;
  }
}

/** Runs `body` in a fresh directory on the tmpfs; closes what it registered and removes the directory whatever happens. */
async function inDirectory(name: string, body: (directory: string, closing: { close(): unknown }[]) => Promise<void> | void): Promise<void> {
  const directory = join(mountPoint, name);
  mkdirSync(directory);
  const closing: { close(): unknown }[] = [];
  try {
    await body(directory, closing);
  } finally {
    for (const item of closing) await item.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

const witnessLine = (runId: string, length: number) => `${JSON.stringify([scope.tenantId, runId, length, "0".repeat(64)])}\n`;

describe.skipIf(cannotMount !== undefined)("sqlite journal: head witness on a full file system (tmpfs)", () => {
  // How many bytes of the next witness line fit before ENOSPC: one, some, all but the newline.
  it.for([1, 23, Buffer.byteLength(witnessLine("run_1", 6)) - 1])(
    "a witness line torn after %i bytes by ENOSPC: the append fails typed, and once space returns the journal appends, reopens and still detects loss and forgery",
    (fits) =>
      inDirectory(`torn-${fits}`, async (directory, closing) => {
        const filename = join(directory, "journal.db");
        const witnessPath = `${filename}-head`;
        const journal = await createSqliteJournal({ filename });
        closing.push(journal);
        await journal.append(scope, 0, [runStartedDraft()]);
        for (let seq = 1; seq < 5; seq++) await journal.append(scope, seq, note(seq));
        // Another run whose witness line leaves exactly `fits` bytes free in the witness's last page.
        const size = statSync(witnessPath).size;
        let padding = (((PAGE - fits - (size % PAGE)) % PAGE) + PAGE) % PAGE;
        if (padding < Buffer.byteLength(witnessLine("pad_", 1))) padding += PAGE;
        const padRun = `pad_${"x".repeat(padding - Buffer.byteLength(witnessLine("pad_", 1)))}`;
        await journal.append({ tenantId: scope.tenantId, runId: padRun }, 0, [runStartedDraft()]);
        expect(statSync(witnessPath).size % PAGE).toBe(PAGE - fits);
        // The next commit reuses the -wal from its start, so SQLite needs no new page: only the witness does.
        raw(filename, (db) => db.pragma("wal_checkpoint(RESTART)"));
        const before = readFileSync(witnessPath);

        const filler = fillDisk(directory);
        const failed = await rejectionOf(journal.append(scope, 5, note(5)));
        // The events are committed; the witness line is not, so the append is not acknowledged.
        expect(raw(filename, (db) => db.prepare("SELECT count(*) AS n FROM events WHERE run_id = ?").get(scope.runId))).toEqual({ n: 6 });
        expect(failed).toMatchObject({ code: "JOURNAL_UNAVAILABLE", retryable: false, details: { witness: witnessPath, errno: "ENOSPC", committed: true } });
        // Nothing torn is left in the witness.
        expect(readFileSync(witnessPath)).toEqual(before);

        rmSync(filler);
        const rolledBack = join(directory, "rolled-back.db");
        raw(filename, (db) => db.pragma("wal_checkpoint(TRUNCATE)"));
        copyFileSync(filename, rolledBack);
        await journal.append(scope, 6, note(6));
        await journal.close();
        expect(await codeOfOpen(filename)).toBeUndefined();
        const reader = await createSqliteJournal({ filename, readOnly: true });
        expect(await reader.verify(scope)).toMatchObject({ ok: true, events: 7 });
        await reader.close();
        const witness = HeadWitness.read(witnessPath)!;
        expect(witness.expected(scope)?.length).toBe(7);
        witness.close();

        // Still detected: a forged head (a rewritten hash), a rolled-back copy of the database, a deleted tail.
        const copy = join(directory, "copy.db");
        raw(filename, (db) => db.pragma("wal_checkpoint(TRUNCATE)"));
        copyFileSync(filename, copy);
        raw(filename, (db) => db.prepare("UPDATE events SET hash = ? WHERE run_id = ? AND seq = 6").run("f".repeat(64), scope.runId));
        expect(await codeOfOpen(filename)).toBe("JOURNAL_WITNESS_INVALID");
        copyFileSync(copy, filename);
        expect(await codeOfOpen(filename)).toBeUndefined();
        copyFileSync(rolledBack, filename);
        expect(await codeOfOpen(filename)).toBe("JOURNAL_TRUNCATED");
        copyFileSync(copy, filename);
        raw(filename, (db) => db.prepare("DELETE FROM events WHERE run_id = ? AND seq = 6").run(scope.runId));
        expect(await codeOfOpen(filename)).toBe("JOURNAL_TRUNCATED");
      }),
  );

  it("a disk too full for SQLite itself: appends fail typed with nothing committed, and go on once space returns", () =>
    inDirectory("sqlite-full", async (directory, closing) => {
      const filename = join(directory, "journal.db");
      const journal = await createSqliteJournal({ filename });
      closing.push(journal);
      await journal.append(scope, 0, [runStartedDraft()]);
      const before = readFileSync(`${filename}-head`);
      const filler = fillDisk(directory);
      // Big enough that the -wal must grow, whatever room its last page had.
      const big = [eventDraft("test.noted", { text: "x".repeat(3 * PAGE) })];
      let seq = 1;
      let refused: unknown;
      for (; seq < 20 && refused === undefined; seq++)
        refused = await journal.append(scope, seq, big).then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(refused).toMatchObject({ code: "JOURNAL_UNAVAILABLE", retryable: false });
      const committed = seq - 2;
      expect(raw(filename, (db) => db.prepare("SELECT count(*) AS n FROM events").get())).toEqual({ n: committed + 1 });
      if (committed === 0) expect(readFileSync(`${filename}-head`)).toEqual(before);
      rmSync(filler);
      await journal.append(scope, committed + 1, note(committed + 1));
      await journal.close();
      expect(await codeOfOpen(filename)).toBeUndefined();
      const reader = await createSqliteJournal({ filename, readOnly: true });
      closing.push(reader);
      expect(await reader.verify(scope)).toMatchObject({ ok: true, events: committed + 2 });
    }));

  it("a compaction that runs out of space keeps the witness it would have replaced, and leaves no temp file", () =>
    inDirectory("compaction", (directory, closing) => {
      const path = join(directory, "journal.db-head");
      const runs = Array.from({ length: 80 }, (_, index) => ({ tenantId: "tenant_a", runId: `run_${String(index).padStart(3, "0")}` }));
      const witness = HeadWitness.create(path, "journal-1", [], 6 * PAGE);
      closing.push(witness);
      for (const run of runs) witness.record(run, { length: 1, hash: "a".repeat(64) }, true);
      expect(statSync(path).size).toBeGreaterThan(PAGE);
      for (let length = 2; statSync(path).size < 6 * PAGE; length++) witness.record(runs[0]!, { length, hash: "b".repeat(64) }, true);
      const before = readFileSync(path);
      // One page free: the compacted witness (80 lines, over a page) does not fit, its first page does.
      const filler = fillDisk(directory, 1);
      expect(() => witness.record(runs[1]!, { length: 2, hash: "c".repeat(64) }, true)).toThrow(
        expect.objectContaining({ code: "JOURNAL_UNAVAILABLE", details: expect.objectContaining({ errno: "ENOSPC" }) }),
      );
      expect(readFileSync(path)).toEqual(before);
      expect(readdirSync(directory).sort()).toEqual(["filler", "journal.db-head"]);
      rmSync(filler);
      witness.record(runs[1]!, { length: 2, hash: "c".repeat(64) }, true);
      witness.close();
      const reread = HeadWitness.read(path)!;
      expect(reread.runs).toBe(80);
      expect(reread.expected(runs[1]!)).toEqual({ length: 2, hash: "c".repeat(64) });
      expect(reread.expected(runs[2]!)).toEqual({ length: 1, hash: "a".repeat(64) });
      reread.close();
    }));
});
