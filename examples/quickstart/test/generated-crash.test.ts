// Generated scenarios under the crash injector: testkit's generatedScenario (random tools,
// faults, conflicts and compensations over several turns) killed at every durable append × 3
// kill points, each kill followed by a resume in a fresh process and checked against the
// invariants. CI runs the seeds below; YOKE_SOAK_SEEDS=N runs seeds 1..N instead (a soak).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { KILL_POINTS, runCrashInjector } from "@yoke/testkit/crash";
import { afterAll, describe, expect, it } from "vitest";

const script = fileURLToPath(new URL("../src/reference.ts", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "yoke-generated-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const soak = Number(process.env.YOKE_SOAK_SEEDS ?? 0);
const seeds = soak > 0 ? Array.from({ length: soak }, (_, index) => index + 1) : [3];

describe("generated scenarios under the crash injector", () => {
  it.for(seeds)("seed %i survives a SIGKILL at every durable transition × 3 kill points", (seed, { annotate, task }) => {
    let next = 0;
    const result = runCrashInjector({
      script,
      args: ["--seed", String(seed), "--quiet"],
      newDirectory: (label) => mkdtempSync(join(root, `${seed}-${label}-${next++}-`)),
    });
    expect(result.failures).toEqual([]);
    expect(result.killPoints).toBe(result.appends * KILL_POINTS.length);
    const uncertain = result.results.flatMap((entry) => entry.report?.uncertain ?? []);
    const summary = `seed ${seed}: ${result.killPoints} kill points (${result.appends} appends × ${KILL_POINTS.length}), crash-free outcome ${result.baseline.outcome}, ${uncertain.length} uncertain actions, all reconciled or escalated`;
    task.meta.summary = summary;
    void annotate(summary);
  }, 600_000);
});
