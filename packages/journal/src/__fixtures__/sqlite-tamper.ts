import { appendFileSync, closeSync, copyFileSync, existsSync, openSync, readSync, rmSync, statSync, truncateSync, writeSync } from "node:fs";
import { EVENT_SCHEMA_VERSION, YokeError, canonicalJson } from "@yoke/protocol";
import type { TamperSubject, TamperedRun } from "@yoke/testkit/contracts";
import Database from "better-sqlite3";
import { computeEventHash } from "../chain.js";
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
      deleteTailRows: (location, run) =>
        edit(location, (db) =>
          db
            .prepare("DELETE FROM events WHERE tenant_id = ? AND run_id = ? AND seq >= ?")
            .run(run.scope.tenantId, run.scope.runId, run.length - run.lastAppend),
        ),
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
      // Without a key a forged row with a correct SHA-256 (and its witness line) is a real one.
      ...(options.keys === undefined ? {} : { forgeRow }),
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

/**
 * Appends a row a forger with write access but no key would write: the next seq, chained to
 * the real head with a correct plain SHA-256, and the matching line in the head witness (a
 * sidecar is as writable as the file it sits beside). Only a keyed chain can tell it apart.
 */
function forgeRow(location: string, run: TamperedRun): void {
  const { tenantId, runId } = run.scope;
  let forged = { seq: 0, hash: "" };
  edit(location, (db) => {
    const head = db.prepare("SELECT seq, at, hash FROM events WHERE tenant_id = ? AND run_id = ? ORDER BY seq DESC LIMIT 1").get(tenantId, runId) as {
      seq: number;
      at: number;
      hash: string;
    };
    const envelope = {
      tenantId,
      runId,
      seq: head.seq + 1,
      type: "test.noted",
      at: head.at,
      causationId: null,
      data: { seq: head.seq + 1, text: "forged" },
      prevHash: head.hash,
      schemaVersion: EVENT_SCHEMA_VERSION,
    };
    const hash = computeEventHash(envelope);
    db.prepare(
      "INSERT INTO events (tenant_id, run_id, seq, type, at, causation_id, data, prev_hash, hash, schema_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ).run(tenantId, runId, envelope.seq, envelope.type, envelope.at, null, canonicalJson(envelope.data), envelope.prevHash, hash, EVENT_SCHEMA_VERSION);
    forged = { seq: envelope.seq, hash };
  });
  if (existsSync(`${location}-head`)) appendFileSync(`${location}-head`, `${JSON.stringify([tenantId, runId, forged.seq + 1, forged.hash])}\n`);
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
    throw new YokeError("TESTKIT_EXPECTATION_FAILED", `the crash image ${location} has no write-ahead log to damage`);
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
