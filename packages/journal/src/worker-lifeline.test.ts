import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirectoryPerTest } from "./__fixtures__/temp-files.js";

const directory = tempDirectoryPerTest("yoke-lifeline-");

describe("test worker processes", () => {
  it("do not outlive their runner: a worker spinning in its claim loop exits when its parent is killed", async () => {
    // One worker told there are two: its effect waits for a second worker that never comes,
    // spinning (what a broken store does to the claim loop). Then its parent dies of SIGKILL.
    const parent = spawn(
      process.execPath,
      [
        join(import.meta.dirname, "__fixtures__", "orphan-parent.mjs"),
        "idempotency-worker.ts",
        directory.file("journal.db"),
        directory.file("ledger"),
        directory.file("seen"),
        "worker_1",
        "1",
        "2",
      ],
      { cwd: join(import.meta.dirname, ".."), stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    parent.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    // The pipes close only when every process holding them — the parent and the worker — has exited.
    const closed = new Promise<void>((resolve) => parent.stdout.on("end", resolve));
    await new Promise<void>((resolve) =>
      parent.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
        if (/^ready$/m.test(stdout)) resolve();
      }),
    );
    parent.kill("SIGKILL");
    await closed;
    expect(stderr).toMatch(/worker \d+ exiting: (stdin closed|its parent process is gone)/);
  });
});
