// Kills the demo with a real SIGKILL after every durable append of its run (and once before
// the first, right after the journal file is created), resumes it in a fresh process, and
// checks the result equals the uninterrupted run's.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "yoke-quickstart-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function demo(dir: string, ...args: string[]) {
  const child = spawnSync(process.execPath, [main, "--dir", dir, ...args], { encoding: "utf8", timeout: 60_000 });
  const line = (label: string) => child.stdout.match(new RegExp(`^${label}: (.*)$`, "m"))?.[1];
  return {
    status: child.status,
    signal: child.signal,
    stdout: child.stdout,
    stderr: child.stderr,
    outcome: line("outcome"),
    verify: line("journal verify"),
    appends: Number(line("appends this process")),
    finalState: line("final state"),
    cost: line("Cost per verified success"),
  };
}

describe("quickstart demo under kill -9", () => {
  let baseline: ReturnType<typeof demo>;
  beforeAll(() => {
    baseline = demo(join(root, "baseline"));
  });

  it("runs to verified success with a verified journal", () => {
    expect(baseline.stderr).toBe("");
    expect(baseline.status).toBe(0);
    expect(baseline.outcome).toMatch(/^verified_success after \d+ turns$/);
    expect(baseline.verify).toMatch(/^ok \(\d+ events/);
    expect(baseline.appends).toBeGreaterThan(4);
    expect(baseline.finalState).toMatch(/^[0-9a-f]{32}$/);
  });

  it("ends with the run's budget report, rebuilt from the journal: per dimension and per attribution", () => {
    const report = baseline.stdout.slice(baseline.stdout.indexOf("budget report (from the journal alone):"));
    expect(report).toContain("Budget: 1 task, 1 verified success");
    expect(baseline.cost).toBe("USD 0.009540 (9540 micro-units), 2652 tokens");
    expect(report).toMatch(/^dimension +limit +charged +held +remaining$/m);
    expect(report).toMatch(/^tool_ops +20 +3 +0 +17$/m);
    expect(report).toMatch(/^turns +8 +5 +0 +3$/m);
    expect(report).toMatch(/^attribution +charges /m);
    expect(report).toMatch(/^model_call +5 +5 +2652 /m);
    expect(report).toMatch(/^tool_attempt +3 /m);
  });

  it("resumes to the same final state after a SIGKILL at every append", ({ task }) => {
    const killPoints: number[] = [];
    for (let n = 0; n <= baseline.appends; n++) {
      const dir = join(root, `crash-${n}`);
      const crashed = demo(dir, "--crash-after", String(n));
      expect(crashed.signal, `crash-after ${n}`).toBe("SIGKILL");
      expect(crashed.finalState).toBeUndefined();
      const resumed = demo(dir, "--resume");
      expect(resumed.stderr, `resume after ${n}`).toBe("");
      expect(resumed.status, `resume after ${n}:\n${resumed.stdout}`).toBe(0);
      expect(resumed.verify).toMatch(/^ok /);
      expect(resumed.outcome).toBe(baseline.outcome);
      expect(resumed.finalState, `final state after a kill at append ${n}`).toBe(baseline.finalState);
      // The budget survives the kill: the same tokens and spend charged, none twice.
      expect(resumed.cost, `budget after a kill at append ${n}`).toBe(baseline.cost);
      killPoints.push(n);
    }
    expect(killPoints).toHaveLength(baseline.appends + 1);
    task.meta.summary = `${killPoints.length} kill points tried (SIGKILL after the journal file is created and after each durable append of the demo run), each resumed to the same final state`;
  }, 300_000);
});
