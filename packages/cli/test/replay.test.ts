// `yoke replay` as a user runs it: a run recorded on a SQLite file, and a run whose process
// died mid-run and was resumed by another, replay through the harness module with 0
// divergences; a harness configured otherwise names the first differing event and exits 1;
// a tampered file is refused before anything is replayed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { createSqliteJournal } from "@yoke/journal";
import { YokeError, type JournalV1 } from "@yoke/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { REPLAY_RUN, REPLAY_TENANT, replayHarness } from "./support/replay-harness.ts";
import { runYoke } from "./support/run-yoke.ts";

const HARNESS = fileURLToPath(new URL("./support/replay-harness.ts", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "yoke-replay-cli-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function recordedFile(name: string): Promise<{ file: string; events: number }> {
  const file = join(scratch, `${name}.sqlite`);
  const journal = await createSqliteJournal({ filename: file });
  try {
    const result = await replayHarness(journal).start("Echo one, then two.", { runId: REPLAY_RUN });
    expect(result.outcome?.status).toBe("completed");
    return { file, events: (await journal.head({ tenantId: REPLAY_TENANT, runId: REPLAY_RUN }))!.length };
  } finally {
    await journal.close();
  }
}

/** A journal whose process dies at its `allowed + 1`-th append: nothing of that append is written. */
function dying(inner: JournalV1, allowed: number): JournalV1 {
  let appends = 0;
  return {
    specificationVersion: "v1",
    capabilities: inner.capabilities,
    ...(inner.leases === undefined ? {} : { leases: inner.leases }),
    async append(scope, expectedSeq, drafts, options) {
      if (appends === allowed) throw new YokeError("INTERNAL", "the process died");
      appends += 1;
      return inner.append(scope, expectedSeq, drafts, options);
    },
    read: (scope, options) => inner.read(scope, options),
    head: (scope) => inner.head(scope),
    verify: (scope) => inner.verify(scope),
    listRuns: (tenantId) => inner.listRuns(tenantId),
    close: () => inner.close(),
  };
}

describe("yoke replay", { timeout: 240_000 }, () => {
  it("a recorded run: every event replayed, 0 divergences (text and --json)", async () => {
    const { file, events } = await recordedFile("completed");
    const text = await runYoke(["replay", REPLAY_RUN, "--harness", HARNESS, "--journal", file]);
    expect(text.stderr).toBe("");
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(`run ${REPLAY_RUN}: ${events} events replayed, 0 divergences (finished; 1 stream)\n`);
    const json = await runYoke(["replay", REPLAY_RUN, "--harness", HARNESS, "--journal", file, "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ runId: REPLAY_RUN, tenantId: REPLAY_TENANT, divergences: 0, events, status: "finished", processes: 1 });
  });

  it("a run whose process died after its tool call was admitted, resumed by another process: 0 divergences", async () => {
    const file = join(scratch, "crashed.sqlite");
    const journal = await createSqliteJournal({ filename: file });
    try {
      // Append 2 holds the first call's outcome with the next request: the process dies before it.
      await expect(replayHarness(dying(journal, 2)).start("Echo one, then two.", { runId: REPLAY_RUN })).rejects.toThrow("the process died");
      const resumed = await replayHarness(journal, { answered: 1, idStart: 1_000 }).resume(REPLAY_RUN, { waitForLease: true });
      expect(resumed.outcome?.status).toBe("completed");
    } finally {
      await journal.close();
    }
    const replayed = await runYoke(["replay", REPLAY_RUN, "--harness", HARNESS, "--journal", file, "--json"]);
    expect(replayed.stderr).toBe("");
    // The recorded death is replayed as one: no outcome came back, so a fresh harness resumes and
    // reconciles (uncertain, retry_safe, a second attempt) as the recorded one did.
    expect(JSON.parse(replayed.stdout)).toMatchObject({ divergences: 0, status: "finished", processes: 2 });
  });

  it("a harness configured otherwise (maxTurns): REPLAY_DIVERGED naming the event and field, exit 1", async () => {
    const { file } = await recordedFile("changed");
    const replayed = await runYoke(["replay", REPLAY_RUN, "--harness", HARNESS, "--journal", file], { env: { YOKE_TEST_MAX_TURNS: "7" } });
    expect(replayed.code).toBe(1);
    expect(replayed.stderr).toBe(`yoke: REPLAY_DIVERGED: run ${REPLAY_RUN} diverged at event 0 (run.started): data.limits.maxTurns was 20, replay gave 7\n`);
  });

  it("a tampered file is refused before anything is replayed (JOURNAL_CHAIN_BROKEN, exit 1); no --harness is a usage error (exit 2)", async () => {
    const { file } = await recordedFile("tampered");
    const db = new Database(file);
    const row = db.prepare("SELECT data FROM events WHERE run_id = ? AND seq = 0").get(REPLAY_RUN) as { data: string };
    db.prepare("UPDATE events SET data = ? WHERE run_id = ? AND seq = 0").run(row.data.replace("Echo one", "Echo six"), REPLAY_RUN);
    db.close();
    const refused = await runYoke(["replay", REPLAY_RUN, "--harness", HARNESS, "--journal", file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^yoke: JOURNAL_CHAIN_BROKEN: /);
    const usage = await runYoke(["replay", REPLAY_RUN, "--journal", file]);
    expect(usage.code).toBe(2);
  });

  it("--checks rerun replays as recorded; --checks other than recorded or rerun is a usage error (exit 2)", async () => {
    const { file } = await recordedFile("checks");
    const rerun = await runYoke(["replay", REPLAY_RUN, "--harness", HARNESS, "--journal", file, "--checks", "rerun", "--json"]);
    expect(rerun.stderr).toBe("");
    expect(JSON.parse(rerun.stdout)).toMatchObject({ divergences: 0, status: "finished" });
    const bad = await runYoke(["replay", REPLAY_RUN, "--harness", HARNESS, "--journal", file, "--checks", "sometimes"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--checks is recorded or rerun");
  });
});
