// `yoke releases` and the release in `yoke show`, in process (main()) over a SQLite journal
// written by real runs: two runs finished under 1.0.0, one waiting under 1.0.0 and one
// waiting under 2.0.0, then one of the 1.0.0 waiting runs resumed by 1.1.0 (release.changed).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import { steppingClock, ulidIdSource } from "@yoke/protocol";
import { createHarness } from "@yoke/runtime";
import { createScriptedModel, refuse, say, type ScriptedStep } from "@yoke/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/main.js";

const scratch = mkdtempSync(join(tmpdir(), "yoke-cli-releases-"));
const file = join(scratch, "journal.sqlite");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function yoke(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), isTTY: false, env: {} });
  return { code, stdout, stderr };
}

async function drive(runtimeVersion: string, runId: string, steps: ScriptedStep[], resume = false): Promise<void> {
  const journal = await createSqliteJournal({ filename: file });
  const clock = steppingClock(Date.UTC(2026, 0, 1) + Number(runId.replace(/\D/g, "")) * 60_000 + (resume ? 30_000 : 0), 1);
  const harness = createHarness({
    journal,
    provider: createScriptedModel(steps),
    tenantId: "tenant_a",
    clock,
    ids: ulidIdSource({ clock, random: () => 0.5 }),
    runtimeVersion,
  });
  if (resume) await harness.resume(runId, { input: "go on" });
  else await harness.start("Task.", { runId });
  await journal.close();
}

beforeAll(async () => {
  await drive("@yoke/runtime@1.0.0", "run_1", [say("done")]);
  await drive("@yoke/runtime@1.0.0", "run_2", [say("done")]);
  await drive("@yoke/runtime@1.0.0", "run_3", [refuse("no")]);
  await drive("@yoke/runtime@2.0.0", "run_4", [refuse("no")]);
  await drive("@yoke/runtime@1.0.0", "run_5", [refuse("no")]);
  await drive("@yoke/runtime@1.1.0", "run_5", [refuse("still no")], true);
});

describe("yoke releases", () => {
  it("counts the runs pinned to each release and lists those still in flight", async () => {
    const json = await yoke(["releases", "--journal", file, "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const { releases, unreadable } = JSON.parse(json.stdout);
    expect(unreadable).toBe(0);
    const byRuntime = Object.fromEntries(releases.map((entry: { release: { runtime: string } }) => [entry.release.runtime, entry]));
    expect(Object.keys(byRuntime).sort()).toEqual(["@yoke/runtime@1.0.0", "@yoke/runtime@1.1.0", "@yoke/runtime@2.0.0"]);
    expect(byRuntime["@yoke/runtime@1.0.0"]).toMatchObject({
      runs: 3,
      finished: 2,
      inFlight: 1,
      inFlightRuns: [{ tenantId: "tenant_a", runId: "run_3", status: "waiting" }],
    });
    expect(byRuntime["@yoke/runtime@2.0.0"]).toMatchObject({ runs: 1, finished: 0, inFlight: 1, inFlightRuns: [{ runId: "run_4" }] });
    // run_5 was resumed by 1.1.0: it is pinned to the release that drives it now.
    expect(byRuntime["@yoke/runtime@1.1.0"]).toMatchObject({ runs: 1, inFlight: 1, inFlightRuns: [{ runId: "run_5" }] });
    expect(byRuntime["@yoke/runtime@1.0.0"].key).toMatch(/^[0-9a-f]{12}$/);

    const text = await yoke(["releases", "--journal", file]);
    const lines = text.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^RELEASE\s+RUNTIME\s+SCHEMA\s+RUNS\s+IN FLIGHT\s+FINISHED$/);
    expect(lines.find((line) => line.includes("@yoke/runtime@1.0.0"))).toMatch(/^[0-9a-f]{12}\s+@yoke\/runtime@1\.0\.0\s+1\s+3\s+1\s+2$/);
    expect(
      lines
        .filter((line) => / tenant_a\s+run_\d\s+waiting$/.test(line))
        .map((line) => line.split(/\s+/)[2])
        .sort(),
    ).toEqual(["run_3", "run_4", "run_5"]);
  });

  it("yoke show names the release a run is pinned to, and since when", async () => {
    const first = await yoke(["show", "run_3", "--journal", file]);
    expect(first.stdout).toContain("release: @yoke/runtime@1.0.0 (event schema 1)\n");
    const changed = await yoke(["show", "run_5", "--journal", file]);
    expect(changed.stdout).toMatch(/release: @yoke\/runtime@1\.1\.0 \(event schema 1\), pinned since #\d+\n/);
    const events = await yoke(["show", "run_5", "--journal", file, "--events"]);
    expect(events.stdout).toMatch(/release\.changed.*@yoke\/runtime@1\.0\.0 → @yoke\/runtime@1\.1\.0 \(runtime\)/);
    const view = JSON.parse((await yoke(["show", "run_5", "--journal", file, "--json"])).stdout);
    expect(view.header.release).toMatchObject({ runtime: "@yoke/runtime@1.1.0", eventSchemaVersion: 1 });
  });

  it("refuses arguments it does not take", async () => {
    expect((await yoke(["releases", "extra", "--journal", file])).code).not.toBe(0);
  });
});
