// The release a run pins, checked on resume: the same release journals nothing; a compatible
// other release journals `release.changed` once; an incompatible one is refused naming every
// difference and the release that can drive the run, migrated through a declared migration
// (journaled), or terminated `cancelled`; a migration that throws is MIGRATION_FAILED, journaled.
import { YokeError, parseYokeEvent, type JournalV1, type YokeEvent } from "@yoke/protocol";
import { createMemoryJournal } from "@yoke/journal";
import { failWith, refuse, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { TENANT, countingTool, journalCutAfterResponse, readAll, rejectionOf, rig } from "../__fixtures__/harness-fixtures.js";
import type { HarnessOptions } from "../harness-types.js";

const A = "@yoke/runtime@1.4.0";
const outage = () => failWith(new YokeError("PROVIDER_REQUEST_INVALID", "bad request"));

/** A run started under `runtime` that stopped on a provider error: resumable, in phase awaiting_response. */
async function stoppedRun(runtime = A, runId = "run_r"): Promise<JournalV1> {
  const first = rig([outage()], { runtimeVersion: runtime });
  await rejectionOf(first.harness.start("t", { runId }));
  return first.journal;
}

async function events(journal: JournalV1, runId = "run_r"): Promise<YokeEvent[]> {
  return (await readAll(journal, runId)).map(parseYokeEvent);
}

function resumer(journal: JournalV1, options: Omit<Partial<HarnessOptions>, "journal"> = {}) {
  return rig([say("done")], { journal, idStart: 100, ...options });
}

describe("a resume checks the release the run pinned", () => {
  it("pins the whole release in run.started", async () => {
    const [started] = await events(await stoppedRun());
    expect(started?.type === "run.started" && started.data.release).toEqual({
      runtime: A,
      eventSchemaVersion: 1,
      providers: [{ provider: "scripted", modelId: expect.any(String) }],
      compiler: { version: expect.any(String), config: expect.stringMatching(/^[0-9a-f]{64}$/) },
      tools: expect.stringMatching(/^[0-9a-f]{64}$/),
      verifiers: [],
    });
  });

  it("under the same release journals nothing about releases", async () => {
    const journal = await stoppedRun();
    const before = (await events(journal)).length;
    expect((await resumer(journal, { runtimeVersion: A }).harness.resume("run_r")).outcome?.status).toBe("completed");
    const after = await events(journal);
    expect(after.slice(before).map((event) => event.type)).not.toContain("release.changed");
    expect(after.slice(before)[0]?.type).toBe("model.responded");
  });

  it("under a compatible other release journals release.changed once, naming each difference, then pins the new one", async () => {
    const journal = await stoppedRun();
    const before = (await events(journal)).length;
    const result = await resumer(journal, { runtimeVersion: "@yoke/runtime@1.9.2" }).harness.resume("run_r");
    expect(result.outcome?.status).toBe("completed");
    const changed = (await events(journal))[before];
    expect(changed).toMatchObject({
      type: "release.changed",
      data: { from: { runtime: A }, to: { runtime: "@yoke/runtime@1.9.2" }, differences: [{ field: "runtime", pinned: A, running: "@yoke/runtime@1.9.2" }] },
    });
    expect(result.state.release.runtime).toBe("@yoke/runtime@1.9.2");
    expect((await resumer(journal, { runtimeVersion: "@yoke/runtime@1.9.2" }).harness.getState("run_r")).release.runtime).toBe("@yoke/runtime@1.9.2");
  });

  it("a refusal names the event that pinned the release it compared: the last release.changed", async () => {
    const journal = await stoppedRun();
    const before = (await events(journal)).length;
    // Resumed by 1.9.2, which stops on the same error: the run is pinned to 1.9.2 and still in flight.
    await rejectionOf(rig([outage()], { journal, idStart: 100, runtimeVersion: "@yoke/runtime@1.9.2" }).harness.resume("run_r"));
    const refused = await rejectionOf(resumer(journal, { runtimeVersion: "@yoke/runtime@2.0.0" }).harness.resume("run_r"));
    expect(refused.code).toBe("RELEASE_INCOMPATIBLE");
    expect(refused.message).toContain(`pinned by event ${before} (release.changed); drive it with @yoke/runtime@1.9.2`);
    expect(refused.details).toMatchObject({ pinnedBy: { seq: before, type: "release.changed" } });
  });

  it("refuses an incompatible release naming every differing field with both values and the release that can drive it; nothing is journaled", async () => {
    const journal = await stoppedRun();
    const before = await events(journal);
    const other = resumer(journal, { runtimeVersion: "@yoke/runtime@2.0.0", systemPrompt: "Be brief." });
    const error = await rejectionOf(other.harness.resume("run_r"));
    expect(error.code).toBe("RELEASE_INCOMPATIBLE");
    expect(error.message).toContain(`runtime: pinned "${A}", running "@yoke/runtime@2.0.0"`);
    expect(error.message).toContain(`drive it with ${A}`);
    const details = (error as YokeError<"RELEASE_INCOMPATIBLE">).details;
    expect(details.differences.map((difference) => difference.field)).toEqual(["runtime"]);
    expect(details).toMatchObject({
      tenantId: TENANT,
      runId: "run_r",
      driveWith: A,
      pinned: { runtime: A },
      running: { runtime: "@yoke/runtime@2.0.0" },
      pinnedBy: { seq: 0, type: "run.started" },
    });
    expect(await events(journal)).toEqual(before);
  });

  it("names the other differing fields too (a changed model and context)", async () => {
    const journal = await stoppedRun();
    const error = await rejectionOf(resumer(journal, { runtimeVersion: "other-build", context: { temperature: 0.3 } }).harness.resume("run_r"));
    expect(error.code).toBe("RELEASE_INCOMPATIBLE");
    expect((error as YokeError<"RELEASE_INCOMPATIBLE">).details.differences.map((difference) => difference.field)).toEqual(["runtime", "compiler"]);
    expect(error.message).toMatch(/compiler: pinned \{.*\}, running \{.*\}/);
  });

  it("a declared rule decides: true drives the run (journaled), false refuses a release the default would take", async () => {
    const journal = await stoppedRun();
    const seen: string[] = [];
    const allowed = resumer(journal, {
      runtimeVersion: "@yoke/runtime@2.0.0",
      releases: {
        compatible: (pinned, running, differences) => {
          seen.push(`${pinned.runtime}->${running.runtime}:${differences.map((difference) => difference.field).join(",")}`);
          return true;
        },
      },
    });
    expect((await allowed.harness.resume("run_r")).outcome?.status).toBe("completed");
    expect(seen).toEqual([`${A}->@yoke/runtime@2.0.0:runtime`]);
    expect((await events(journal)).some((event) => event.type === "release.changed")).toBe(true);

    const strict = await stoppedRun(A, "run_s");
    const refused = resumer(strict, { runtimeVersion: "@yoke/runtime@1.4.1", releases: { compatible: () => false } });
    expect((await rejectionOf(refused.harness.resume("run_s"))).code).toBe("RELEASE_INCOMPATIBLE");
  });

  it("a rule's 'migrate' without a migration that applies is refused; a rule answering anything else is CONFIG_INVALID", async () => {
    const journal = await stoppedRun();
    const before = await events(journal);
    const migrateOnly = resumer(journal, { runtimeVersion: "@yoke/runtime@1.5.0", releases: { compatible: () => "migrate" } });
    expect((await rejectionOf(migrateOnly.harness.resume("run_r"))).code).toBe("RELEASE_INCOMPATIBLE");
    const odd = resumer(journal, { runtimeVersion: "@yoke/runtime@1.5.0", releases: { compatible: () => "yes" as never } });
    const error = await rejectionOf(odd.harness.resume("run_r"));
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.details).toEqual({ option: "releases.compatible" });
    expect(await events(journal)).toEqual(before);
  });

  it("terminates an incompatible run when asked: cancelled, the reason naming both releases", async () => {
    const journal = await stoppedRun();
    const ended = resumer(journal, { runtimeVersion: "@yoke/runtime@2.0.0", releases: { onIncompatible: "terminate" } });
    const result = await ended.harness.resume("run_r");
    expect(result.outcome).toEqual({
      status: "cancelled",
      reason: expect.stringContaining(`release ${A} cannot be driven by @yoke/runtime@2.0.0: runtime: pinned`),
    });
    expect((await events(journal)).at(-1)?.type).toBe("run.completed");
  });

  it("refuses to terminate a run with calls in flight: a cancel never lands between a call and its result", async () => {
    const store = countingTool("store", "idempotent");
    const call = { type: "tool-call" as const, toolCallId: "c1", toolName: "store", rawArguments: '{"key":"k"}', arguments: { key: "k" } };
    const journal = await journalCutAfterResponse("run_p", [store.tool], [call]);
    const before = await events(journal, "run_p");
    const ended = rig([say("done")], {
      journal,
      tools: [store.tool],
      idStart: 100,
      runtimeVersion: "@yoke/runtime@99.0.0",
      releases: { onIncompatible: "terminate" },
    });
    expect((await rejectionOf(ended.harness.resume("run_p"))).code).toBe("RELEASE_INCOMPATIBLE");
    expect(await events(journal, "run_p")).toEqual(before);
    expect(store.calls).toEqual([]);
  });

  it("migrates through a declared migration: release.migrated, then the migration's events, in one append; the run finishes", async () => {
    // A run that waits for a person: the migration answers it.
    const first = rig([refuse("I cannot.")], { runtimeVersion: A });
    expect((await first.harness.start("t", { runId: "run_r" })).waiting).toBeDefined();
    const { journal } = first;
    const before = (await events(journal)).length;
    const given: number[] = [];
    const migrated = resumer(journal, {
      runtimeVersion: "@yoke/runtime@2.0.0",
      releases: {
        migrations: [
          { id: "other", from: "@yoke/runtime@0.9.0", to: "@yoke/runtime@2.0.0", migrate: () => [] },
          {
            id: "v1-to-v2",
            from: A,
            to: "@yoke/runtime@2.0.0",
            migrate: ({ events: read, state }) => {
              given.push(read.length, state.length);
              return [
                { type: "input.added", at: 5, causationId: null, data: { content: [{ type: "text", text: "Migrated from 1.x: go on." }], source: "user" } },
              ];
            },
          },
        ],
      },
    });
    expect(migrated.journal.appends).toEqual([]);
    const result = await migrated.harness.resume("run_r");
    expect(given).toEqual([before, before]);
    expect(migrated.journal.appends[0]).toEqual(["release.migrated", "input.added"]);
    expect((await events(journal))[before]).toMatchObject({
      type: "release.migrated",
      data: { migrationId: "v1-to-v2", events: 1, to: { runtime: "@yoke/runtime@2.0.0" } },
    });
    expect(result.outcome?.status).toBe("completed");
  });

  it("a migration that throws is MIGRATION_FAILED naming it and the run, journaled as run.failed; a fixed one then migrates", async () => {
    const journal = await stoppedRun();
    const before = (await events(journal)).length;
    const migration = { id: "v1-to-v2", from: A, to: "@yoke/runtime@2.0.0" };
    const broken = resumer(journal, {
      runtimeVersion: "@yoke/runtime@2.0.0",
      releases: {
        migrations: [
          {
            ...migration,
            migrate: () => {
              throw new Error("no reader for 1.x");
            },
          },
        ],
      },
    });
    const error = await rejectionOf(broken.harness.resume("run_r"));
    expect(error.code).toBe("MIGRATION_FAILED");
    expect(error.message).toBe(`migration v1-to-v2 of run run_r from ${A} to @yoke/runtime@2.0.0 failed: no reader for 1.x`);
    expect(error.details).toEqual({ tenantId: TENANT, runId: "run_r", migrationId: "v1-to-v2" });
    const after = await events(journal);
    expect(after.slice(before).map((event) => event.type)).toEqual(["run.failed"]);
    expect(after.at(-1)).toMatchObject({ data: { code: "MIGRATION_FAILED", retryable: false } });

    const fixed = resumer(journal, { runtimeVersion: "@yoke/runtime@2.0.0", releases: { migrations: [{ ...migration, migrate: () => undefined }] } });
    expect((await fixed.harness.resume("run_r")).outcome?.status).toBe("completed");
  });

  it("a migration whose events the fold refuses is MIGRATION_FAILED, and none of them is written", async () => {
    const journal = await stoppedRun();
    const before = (await events(journal)).length;
    const bad = resumer(journal, {
      runtimeVersion: "@yoke/runtime@2.0.0",
      releases: {
        migrations: [
          {
            id: "bad",
            from: A,
            to: "@yoke/runtime@2.0.0",
            migrate: () => [{ type: "turn.started", at: 5, causationId: null, data: { turnId: "turn_x", index: 9 } }],
          },
        ],
      },
    });
    const error = await rejectionOf(bad.harness.resume("run_r"));
    expect(error.code).toBe("MIGRATION_FAILED");
    expect(error.message).toMatch(/^migration bad of run run_r .*turn\.started/);
    expect((await events(journal)).slice(before).map((event) => event.type)).toEqual(["run.failed"]);
  });

  it("the default rule takes a later release of the same series, never an older one (semver precedence, pre-releases included)", async () => {
    const cases: [pinned: string, running: string, drives: boolean][] = [
      ["@yoke/runtime@1.4.0", "@yoke/runtime@1.10.0", true],
      ["@yoke/runtime@1.4.0", "@yoke/runtime@1.4.1", true],
      ["@yoke/runtime@1.4.0-rc.1", "@yoke/runtime@1.4.0", true],
      ["@yoke/runtime@1.4.0-rc.2", "@yoke/runtime@1.4.0-rc.10", true],
      ["@yoke/runtime@1.10.0", "@yoke/runtime@1.9.0", false],
      ["@yoke/runtime@1.4.1", "@yoke/runtime@1.4.0", false],
      ["@yoke/runtime@1.4.0", "@yoke/runtime@1.4.0-rc.1", false],
      ["@yoke/runtime@1.4.0-rc.10", "@yoke/runtime@1.4.0-rc.2", false],
      ["@yoke/runtime@0.4.1", "@yoke/runtime@0.5.0", false],
      ["@yoke/runtime@2.0.0", "@yoke/runtime@1.9.9", false],
      ["@yoke/runtime@1.4.0", "@other/runtime@1.4.0", false],
    ];
    const seen: [string, string, boolean][] = [];
    for (const [pinned, running] of cases) {
      const journal = await stoppedRun(pinned);
      const outcome = await resumer(journal, { runtimeVersion: running })
        .harness.resume("run_r")
        .then(
          () => true,
          (error: unknown) => (YokeError.hasCode(error, "RELEASE_INCOMPATIBLE") ? false : Promise.reject(error)),
        );
      seen.push([pinned, running, outcome]);
    }
    expect(seen).toEqual(cases);
  });

  it("refuses a run pinned to a newer event schema, naming the field", async () => {
    const journal = createMemoryJournal();
    const running = await events(await stoppedRun());
    const started = running[0]!;
    if (started.type !== "run.started") throw new Error("run.started first");
    await journal.append({ tenantId: TENANT, runId: "run_n" }, 0, [
      { type: "run.started", at: 0, causationId: null, data: { ...started.data, release: { ...started.data.release, eventSchemaVersion: 2 } } },
    ]);
    const error = await rejectionOf(resumer(journal, { runtimeVersion: A }).harness.resume("run_n"));
    expect(error.code).toBe("RELEASE_INCOMPATIBLE");
    expect(error.message).toContain("eventSchemaVersion: pinned 2, running 1; the release was pinned by event 0 (run.started)");
  });

  it("refuses malformed release options", () => {
    const bad = [
      { compatible: "yes" },
      { onIncompatible: "ignore" },
      { migrations: [{ id: "", from: A, to: "x", migrate: () => [] }] },
      { migrations: [{ id: "m", from: A, migrate: () => [] }] },
      { migrations: [{ id: "m", from: A, to: "x" }] },
    ];
    for (const releases of bad) {
      const error = (() => {
        try {
          rig([], { releases: releases as never });
        } catch (caught) {
          return caught;
        }
      })();
      expect(YokeError.hasCode(error, "CONFIG_INVALID"), JSON.stringify(releases)).toBe(true);
    }
  });
});
