// `yoke worker` with real processes: a run whose process was SIGKILLed mid-run is finished by
// workers started afterwards, exactly once however many race for it, with no effect repeated;
// a worker stops gracefully on SIGTERM.
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { open } from "node:fs/promises";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { completedRun, crashedRun, readEvents, removeJournals } from "./support/journals.ts";
import { YOKE_BIN, runYoke } from "./support/run-yoke.ts";

const HARNESS = fileURLToPath(new URL("./support/worker-harness.ts", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "yoke-worker-"));
afterAll(() => {
  removeJournals();
  rmSync(scratch, { recursive: true, force: true });
});

interface WorkerOutput {
  readonly runs: { runId: string; result: string; appended?: number; outcome?: string }[];
}

describe("yoke worker (real processes)", { timeout: 240_000 }, () => {
  it("two workers racing for a SIGKILLed run: one finishes it, exactly once, and no effect is repeated", async () => {
    const crashed = await crashedRun({ fresh: true });
    const effects = join(scratch, "effects.log");
    writeFileSync(effects, "");
    const before = (await readEvents(crashed)).length;
    const env = { YOKE_TEST_WORKSPACE: crashed.workspace, YOKE_TEST_EFFECTS: effects };
    const workers = await Promise.all([1, 2].map(() => runYoke(["worker", "--once", "--harness", HARNESS, "--journal", crashed.file, "--json"], { env })));
    for (const worker of workers) expect(worker.code, worker.stderr).toBe(0);
    const reports = workers.map((worker) => (JSON.parse(worker.stdout) as WorkerOutput).runs);
    const after = await readEvents(crashed);
    // One worker appended everything the run needed to finish; the other appended nothing.
    const appended = reports.flat().map((run) => run.appended ?? 0);
    expect(appended.filter((count) => count > 0)).toEqual([after.length - before]);
    const driver = reports.findIndex((runs) => runs.some((run) => (run.appended ?? 0) > 0));
    expect(reports[driver]).toEqual([
      { tenantId: "tenant_cli", runId: "run_cli", result: "resumed", appended: after.length - before, outcome: "verified_success" },
    ]);
    // Its log (pino, JSON lines on stderr) says so; the other worker's never does.
    const resumedLines = (stderr: string) =>
      stderr
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { msg?: string; runId?: string })
        .filter((entry) => entry.msg === "run resumed by the worker" && entry.runId === "run_cli");
    expect(resumedLines(workers[driver]!.stderr)).toHaveLength(1);
    // The killed process had admitted the write but not run it: the write and the check ran once each, in the driving worker.
    const lines = readFileSync(effects, "utf8").trim().split("\n");
    expect(lines.map((line) => line.split(" ").slice(1).join(" "))).toEqual(["run_cli write_file", "run_cli run_check"]);
    expect(new Set(lines.map((line) => line.split(" ")[0])).size).toBe(1);
    expect(after.filter((event) => event.type === "run.completed")).toHaveLength(1);
    expect(after.at(-1)).toMatchObject({ type: "run.completed", data: { outcome: { status: "verified_success" } } });
    expect(readFileSync(join(crashed.workspace, "summary.md"), "utf8")).toBe("# Summary\n\n- ship the journal\n- write the tests\n- run the demo\n");
    expect((await runYoke(["verify", "--journal", crashed.file])).code).toBe(0);
    // A worker started later finds nothing to do.
    const later = await runYoke(["worker", "--once", "--harness", HARNESS, "--journal", crashed.file], { env });
    expect(later.stdout).toBe(`no run to resume in ${crashed.file}\n`);
    expect(readFileSync(effects, "utf8").trim().split("\n")).toHaveLength(2);
  });

  it("a run whose owner is alive is never taken; once that owner is SIGKILLed, the next scan takes it at once", async () => {
    const crashed = await crashedRun({ fresh: true });
    const effects = join(scratch, "effects-alive.log");
    writeFileSync(effects, "");
    const env = { YOKE_TEST_WORKSPACE: crashed.workspace, YOKE_TEST_EFFECTS: effects };
    const holder = spawn(process.execPath, [fileURLToPath(new URL("./support/lease-holder.ts", import.meta.url)), crashed.file, "tenant_cli", "run_cli"], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    const exited = once(holder, "exit");
    await new Promise<void>((resolve) => holder.stdout.setEncoding("utf8").on("data", (chunk: string) => chunk.includes("held") && resolve()));
    const before = (await readEvents(crashed)).length;
    const alive = await runYoke(["worker", "--once", "--harness", HARNESS, "--journal", crashed.file, "--json"], { env });
    expect(alive.code, alive.stderr).toBe(0);
    expect((JSON.parse(alive.stdout) as WorkerOutput).runs).toEqual([{ tenantId: "tenant_cli", runId: "run_cli", result: "owned_elsewhere", appended: 0 }]);
    expect((await readEvents(crashed)).length).toBe(before);
    expect(readFileSync(effects, "utf8")).toBe("");

    holder.kill("SIGKILL");
    await exited;
    // Its lease has ten minutes left, but its owner is provably dead (this machine, its pid gone).
    const after = await runYoke(["worker", "--once", "--harness", HARNESS, "--journal", crashed.file, "--json"], { env });
    expect((JSON.parse(after.stdout) as WorkerOutput).runs).toMatchObject([{ runId: "run_cli", result: "resumed", outcome: "verified_success" }]);
    expect(
      readFileSync(effects, "utf8")
        .trim()
        .split("\n")
        .map((line) => line.split(" ").slice(1).join(" ")),
    ).toEqual(["run_cli write_file", "run_cli run_check"]);
  });

  it("SIGTERM while a run is in hand: the worker takes no new run, lets that one reach its outcome, then exits 0", async () => {
    const crashed = await crashedRun({ fresh: true });
    const gate = join(scratch, "gate");
    execFileSync("mkfifo", [gate]);
    const child = spawn(process.execPath, [YOKE_BIN, "worker", "--interval", "20", "--harness", HARNESS, "--journal", crashed.file], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, YOKE_TEST_WORKSPACE: crashed.workspace, YOKE_TEST_EFFECTS: join(scratch, "gated.log"), YOKE_TEST_GATE: gate },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const exited = once(child, "exit") as Promise<[number | null, string | null]>;
    // Opening the pipe for writing returns once the worker's check opened it for reading: the run is in its hands.
    const writer = await open(gate, "w");
    child.kill("SIGTERM");
    await writer.write("go");
    await writer.close();
    const [code, signal] = await exited;
    expect([code, signal], stderr).toEqual([0, null]);
    expect(stdout).toMatch(/^run run_cli \(tenant_cli\): resumed: verified_success \(\d+ event\(s\) appended\)\n$/);
    expect((await readEvents(crashed)).at(-1)).toMatchObject({ type: "run.completed", data: { outcome: { status: "verified_success" } } });
    expect(stderr).toContain('"msg":"worker stopped"');
  });

  it("SIGTERM stops a polling worker gracefully (exit 0, its summary printed); --harness is required", async () => {
    const completed = await completedRun();
    const child = spawn(process.execPath, [YOKE_BIN, "worker", "--interval", "20", "--harness", HARNESS, "--journal", completed.file], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, YOKE_TEST_WORKSPACE: completed.workspace, YOKE_TEST_EFFECTS: join(scratch, "unused.log") },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    const started = new Promise<void>((resolve) =>
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        // Two scans logged at debug are not asked for: "worker started" (info) is the sign it polls.
        if (stderr.includes('"msg":"worker started"')) resolve();
      }),
    );
    const exited = once(child, "exit") as Promise<[number | null, string | null]>;
    await started;
    child.kill("SIGTERM");
    const [code] = await exited;
    expect(code, stderr).toBe(0);
    expect(stdout).toBe(`no run to resume in ${completed.file}\n`);
    expect(stderr).toContain('"msg":"worker stopped"');

    const missing = await runYoke(["worker", "--journal", completed.file]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      "yoke: CONFIG_INVALID: --harness <module> is required\nusage: yoke worker --harness <module> [--journal FILE] [--tenant T] [--interval MS] [--concurrency N] [--once] [--log-level debug|info|warn|error] [--json]\n",
    );
  });
});
