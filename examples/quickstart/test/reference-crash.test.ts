// The crash injector over the reference scenario: a SIGKILL at every durable append × three
// kill points, each followed by a resume in a fresh process, checked against the invariants.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { KILL_POINTS, runCrashInjector } from "@yoke/testkit/crash";
import { afterAll, describe, expect, it } from "vitest";

declare module "vitest" {
  interface TaskMeta {
    /** A line scripts/test-summary.ts prints from the JSON report. */
    summary?: string;
  }
}

const script = fileURLToPath(new URL("../src/reference.ts", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "yoke-reference-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("reference scenario under the crash injector", () => {
  it("survives a SIGKILL at every durable transition × 3 kill points", ({ annotate, task }) => {
    let next = 0;
    const result = runCrashInjector({ script, newDirectory: (label) => mkdtempSync(join(root, `${label}-${next++}-`)) });
    expect(result.failures).toEqual([]);
    // No completion check, and book_flight failed: the run is completed, never verified.
    expect(result.baseline.outcome).toBe("completed");
    expect(result.appends).toBeGreaterThanOrEqual(6);
    expect(result.killPoints).toBe(result.appends * KILL_POINTS.length);
    // Kills after dispatch must have produced uncertain actions, each reconciled.
    const reconciled = result.results.flatMap((entry) => entry.report?.uncertain ?? []);
    expect(reconciled.length).toBeGreaterThan(0);
    expect(new Set(reconciled.map((action) => action.resolution))).toEqual(new Set(["retry_safe", "not_applied", "applied"]));
    const summary = `${result.killPoints} kill points tried (${result.appends} durable appends × ${KILL_POINTS.length}); ${reconciled.length} uncertain actions, all reconciled`;
    // The summary reaches the JSON report (printed by scripts/test-summary.ts) and the reporters.
    task.meta.summary = summary;
    void annotate(summary);
  }, 300_000);
});
