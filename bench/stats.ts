// Small helpers shared by the benchmarks: medians, child-process runs, table printing.
import { execFileSync } from "node:child_process";
import Database from "better-sqlite3";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

export const benchDir = dirname(fileURLToPath(import.meta.url));

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Runs `bench/<script>` in a fresh Node process and returns the JSON it prints last. */
export function runChild<T>(script: string, args: readonly string[], nodeFlags: readonly string[] = []): T {
  return runNode<T>([...nodeFlags, join(benchDir, script), ...args]);
}

/** Runs Node with `args` in a fresh process (in bench/) and returns the JSON it prints last. */
export function runNode<T>(args: readonly string[]): T {
  const output = execFileSync(process.execPath, args, {
    cwd: benchDir,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const last = output.trim().split("\n").at(-1)!;
  return JSON.parse(last) as T;
}

export function printTable(title: string, header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]) => cells.map((cell, column) => cell.padStart(widths[column]!)).join("  ");
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((width) => "-".repeat(width)).join("  "));
  for (const row of rows) console.log(line(row));
}

export const fmt = (value: number, digits = 0) => value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

/**
 * A bare better-sqlite3 file with the journal's `events` table (WAL, the given synchronous
 * level) and a prepared row insert: the raw baseline the benchmarks compare Yoke against.
 */
export function openRawEvents(filename: string, synchronous: "full" | "normal") {
  const db = new Database(filename);
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${synchronous.toUpperCase()}`);
  db.exec(`CREATE TABLE events (tenant_id TEXT NOT NULL, run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL,
    at INTEGER NOT NULL, causation_id TEXT, data TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL,
    schema_version INTEGER NOT NULL, PRIMARY KEY (tenant_id, run_id, seq)) WITHOUT ROWID, STRICT`);
  return { db, insert: db.prepare("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)") };
}
