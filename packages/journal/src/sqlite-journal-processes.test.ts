import { describe, expect, it } from "vitest";
import { tempDirectoryPerTest } from "./__fixtures__/temp-files.js";
import { startWorker } from "./__fixtures__/worker-process.js";
import { createSqliteJournal } from "./sqlite-journal.js";

interface WorkerReport {
  readonly writer: string;
  readonly startedRun: boolean;
  readonly conflicts: number;
  readonly appended: readonly number[];
}

/** Starts a writer process; resolves once it has opened the journal and waits to be released. */
async function startWriter(filename: string, writer: string, events: number) {
  const worker = await startWorker("append-worker.ts", [filename, writer, String(events)]);
  return { release: async () => JSON.parse(await worker.release()) as WorkerReport };
}

describe("sqlite journal: several processes on one file", () => {
  const directory = tempDirectoryPerTest();

  it("create the file together, start the run once, and append a gapless log", async () => {
    const filename = directory.file("shared.db");
    const writers = ["w1", "w2", "w3", "w4"];
    const perWriter = 25;
    // Every writer opens the new file at once, then all are released together.
    const started = await Promise.all(writers.map((writer) => startWriter(filename, writer, perWriter)));
    const reports = await Promise.all(started.map((worker) => worker.release()));
    expect(reports.reduce((sum, report) => sum + report.conflicts, 0)).toBeGreaterThan(0);

    expect(reports.filter((report) => report.startedRun)).toHaveLength(1);
    const won = reports.flatMap((report) => report.appended).sort((a, b) => a - b);
    expect(won).toEqual(Array.from({ length: writers.length * perWriter }, (_, index) => index + 1));

    const journal = await createSqliteJournal({ filename });
    try {
      const scope = { tenantId: "tenant_a", runId: "run_shared" };
      expect(await journal.verify(scope)).toMatchObject({ ok: true, events: 1 + writers.length * perWriter });
      const bySeq = new Map<number, unknown>();
      for await (const event of journal.read(scope, { fromSeq: 1 })) bySeq.set(event.seq, event.data.writer);
      for (const report of reports) {
        for (const seq of report.appended) expect(bySeq.get(seq)).toBe(report.writer);
      }
    } finally {
      await journal.close();
    }
  });
});
