import { readFileSync } from "node:fs";
import type { IdempotencyOutcome } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { tempDirectoryPerTest } from "./__fixtures__/temp-files.js";
import { startWorker } from "./__fixtures__/worker-process.js";

interface WorkerReport {
  readonly worker: string;
  readonly claimed: number;
  readonly outcomes: readonly IdempotencyOutcome[];
}

describe("sqlite idempotency records: several processes on one file", () => {
  const directory = tempDirectoryPerTest();

  it("32 submissions of one key from 4 processes run the effect exactly once, and all get its outcome", async () => {
    const [filename, ledger, seen] = [directory.file("shared.db"), directory.file("ledger.txt"), directory.file("seen.txt")];
    const workers = ["w1", "w2", "w3", "w4"];
    const perWorker = 8;
    // Every worker opens the new file at once (creating its schema together), then all are released together.
    const started = await Promise.all(
      workers.map((worker) => startWorker("idempotency-worker.ts", [filename, ledger, seen, worker, String(perWorker), String(workers.length)])),
    );
    const reports = (await Promise.all(started.map(async (process) => JSON.parse(await process.release()) as WorkerReport))).sort((a, b) =>
      a.worker.localeCompare(b.worker),
    );

    const ran = readFileSync(ledger, "utf8").split("\n").filter(Boolean);
    expect(ran).toHaveLength(1);
    expect(reports.map((report) => report.claimed).reduce((sum, claimed) => sum + claimed, 0)).toBe(1);
    const outcome = { status: "succeeded", value: { ranIn: ran[0] } };
    expect(reports.flatMap((report) => report.outcomes)).toEqual(Array.from({ length: workers.length * perWorker }, () => outcome));
    // Every process, the winner's included, found the key in progress while the effect ran.
    expect(new Set(readFileSync(seen, "utf8").split("\n").filter(Boolean))).toEqual(new Set(workers));
  });
});
