import { closeSync, copyFileSync, existsSync, openSync, readSync, rmSync, statSync, truncateSync, writeSync } from "node:fs";
import type { TamperSubject, TamperedRun } from "@yoke/testkit/contracts";
import Database from "better-sqlite3";
import { createSqliteJournal, type SqliteJournalOptions } from "../sqlite-journal.js";

const SIDE_FILES = ["-wal", "-head"] as const;

/**
 * The SQLite journal as a tamper-suite subject: journals in `directory()`, crash images
 * copied file by file while the journal is open (with `synchronous: "full"` the database and
 * its `-wal` on disk are what a killed process leaves), and every damage done with the real
 * files and a real better-sqlite3 connection.
 */
export function sqliteTamperSubject(directory: () => string, options: Partial<SqliteJournalOptions> = {}): TamperSubject {
  let next = 0;
  return {
    location: () => `${directory()}/journal-${next++}.db`,
    open: (location) => createSqliteJournal({ ...options, filename: location } as SqliteJournalOptions),
    settle(location) {
      const db = new Database(location);
      db.pragma("wal_checkpoint(TRUNCATE)");
      db.close();
    },
    crashImage(location) {
      const image = `${directory()}/image-${next++}.db`;
      copyFileSync(location, image);
      for (const suffix of SIDE_FILES) if (existsSync(location + suffix)) copyFileSync(location + suffix, image + suffix);
      return image;
    },
    remove(location) {
      for (const suffix of ["", "-wal", "-shm", "-head"]) rmSync(location + suffix, { force: true });
    },
    tamper: {
      deleteTailRows: (location, run) => edit(location, (db) => db.prepare("DELETE FROM events WHERE tenant_id = ? AND run_id = ? AND seq >= ?").run(run.scope.tenantId, run.scope.runId, run.length - run.lastAppend)),
      deleteWal(location) {
        requireWal(location);
        rmSync(`${location}-wal`);
        rmSync(`${location}-shm`, { force: true });
      },
      truncateWal(location) {
        requireWal(location);
        truncateSync(`${location}-wal`, Math.floor(statSync(`${location}-wal`).size / 2));
      },
      corruptWal(location) {
        requireWal(location);
        flipByte(`${location}-wal`, statSync(`${location}-wal`).size - 64);
      },
      truncateFile(location) {
        truncateSync(location, 0);
        rmSync(`${location}-wal`, { force: true });
        rmSync(`${location}-shm`, { force: true });
      },
      swapRows: (location, run: TamperedRun) =>
        edit(location, (db) => {
          const select = db.prepare("SELECT data FROM events WHERE tenant_id = ? AND run_id = ? AND seq = ?");
          const update = db.prepare("UPDATE events SET data = ? WHERE tenant_id = ? AND run_id = ? AND seq = ?");
          const { tenantId, runId } = run.scope;
          const a = (select.get(tenantId, runId, 4) as { data: string }).data;
          const b = (select.get(tenantId, runId, 5) as { data: string }).data;
          update.run(b, tenantId, runId, 4);
          update.run(a, tenantId, runId, 5);
        }),
    },
  };
}

function edit(location: string, change: (db: Database.Database) => void): void {
  const db = new Database(location);
  try {
    change(db);
  } finally {
    db.close();
  }
}

function requireWal(location: string): void {
  if (!existsSync(`${location}-wal`) || statSync(`${location}-wal`).size === 0) {
    throw new Error(`the crash image ${location} has no write-ahead log to damage`);
  }
}

function flipByte(path: string, offset: number): void {
  const fd = openSync(path, "r+");
  try {
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, offset);
    byte[0] = (byte[0] as number) ^ 0xff;
    writeSync(fd, byte, 0, 1, offset);
  } finally {
    closeSync(fd);
  }
}
