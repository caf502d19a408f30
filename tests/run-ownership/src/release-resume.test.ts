// The release a run pins, checked across real processes: a run started under release A,
// SIGKILLed with its tool in flight, is refused by release B (an incompatible major) naming
// the difference and the release that can drive it, nothing journaled; a migration that throws
// is MIGRATION_FAILED, journaled; with a declared migration it finishes, `release.migrated` in
// its journal. Every wait is on a child's output, never on the clock.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSqliteJournal } from "@yoke/journal";
import { parseYokeEvent, type YokeEvent } from "@yoke/protocol";
import { ScriptProcess } from "@yoke/testkit/crash";
import { afterAll, describe, expect, it } from "vitest";

const script = fileURLToPath(new URL("./release-scenario.ts", import.meta.url));
const scope = { tenantId: "tenant_releases", runId: "run_released" };
const A = "@yoke/runtime@1.4.0";
const B = "@yoke/runtime@2.0.0";
const root = mkdtempSync(join(tmpdir(), "yoke-releases-"));
const launched: ScriptProcess[] = [];
afterAll(async () => {
  await Promise.all(launched.map((child) => child.kill()));
  rmSync(root, { recursive: true, force: true });
});

async function launch(dir: string, mode: "start" | "resume", runtime: string, migration: "none" | "ok" | "throws" = "none"): Promise<ScriptProcess> {
  const child = new ScriptProcess(
    `${mode}-${runtime}-${migration}`,
    script,
    ["--dir", dir, "--mode", mode, "--runtime", runtime, "--migration", migration],
    "yoke-releases-compile-cache",
  );
  launched.push(child);
  expect(await child.line("READY"), child.transcript()).toBe("READY");
  child.send("go");
  return child;
}

async function eventsOf(dir: string): Promise<YokeEvent[]> {
  const journal = await createSqliteJournal({ filename: join(dir, "journal.sqlite"), readOnly: true });
  try {
    const events: YokeEvent[] = [];
    for await (const event of journal.read(scope)) events.push(parseYokeEvent(event));
    expect(await journal.verify(scope)).toMatchObject({ ok: true });
    return events;
  } finally {
    await journal.close();
  }
}

describe("a run's release across a crash", () => {
  it("killed under A, refused by an incompatible B naming the difference; a failing migration is journaled; a declared one finishes it", async () => {
    const dir = join(root, "trial");
    const owner = await launch(dir, "start", A);
    expect(await owner.line("TOOL_STARTED"), owner.transcript()).toBe("TOOL_STARTED");
    expect((await owner.kill()).signal).toBe("SIGKILL");
    const killedAt = (await eventsOf(dir)).length;

    const refused = await launch(dir, "resume", B);
    const refusal = await refused.line("FAILED ");
    expect(refusal, refused.transcript()).toMatch(/^FAILED RELEASE_INCOMPATIBLE /);
    expect(refusal).toContain(`runtime: pinned "${A}", running "${B}"`);
    expect(refusal).toContain(`drive it with ${A}`);
    expect(refused.has("TOOL_STARTED")).toBe(false);
    expect(await eventsOf(dir)).toHaveLength(killedAt);

    const broken = await launch(dir, "resume", B, "throws");
    expect(await broken.line("FAILED "), broken.transcript()).toMatch(/^FAILED MIGRATION_FAILED migration one-to-two of run run_released .*cannot be read/);
    const afterBroken = await eventsOf(dir);
    expect(afterBroken).toHaveLength(killedAt + 1);
    expect(afterBroken.at(-1)).toMatchObject({ type: "run.failed", data: { code: "MIGRATION_FAILED", retryable: false } });

    const migrated = await launch(dir, "resume", B, "ok");
    expect(await migrated.line("MIGRATED "), migrated.transcript()).toBe(`MIGRATED ${killedAt + 1}`);
    expect(await migrated.line("TOOL_STARTED"), migrated.transcript()).toBe("TOOL_STARTED");
    migrated.send("finish");
    expect(await migrated.line("DONE "), migrated.transcript()).toBe('DONE {"outcome":"completed"}');

    const events = await eventsOf(dir);
    expect(events[0]).toMatchObject({ type: "run.started", data: { release: { runtime: A } } });
    const checkpoint = events.find((event) => event.type === "release.migrated");
    expect(checkpoint).toMatchObject({
      seq: killedAt + 1,
      data: { from: { runtime: A }, to: { runtime: B }, migrationId: "one-to-two", events: 0, differences: [{ field: "runtime", pinned: A, running: B }] },
    });
    expect(events.filter((event) => event.type === "release.changed")).toEqual([]);

    // Resumed again under B, the run (now pinned to B, and finished) journals nothing.
    const again = await launch(dir, "resume", B);
    expect(await again.line("DONE "), again.transcript()).toBe('DONE {"outcome":"completed"}');
    expect(await eventsOf(dir)).toHaveLength(events.length);
  });
});
