// `yoke sessions`, `yoke show <session>` and a session's export/import, in process (main())
// over a SQLite journal written by real runs: a two-run session, a run started without one
// (a session of one), and another tenant's session.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import { steppingClock, ulidIdSource } from "@yoke/protocol";
import { createHarness, reconstructRequest } from "@yoke/runtime";
import { createScriptedModel, say } from "@yoke/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/main.js";

const scratch = mkdtempSync(join(tmpdir(), "yoke-cli-sessions-"));
const file = join(scratch, "journal.sqlite");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function yoke(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), isTTY: false, env: {} });
  return { code, stdout, stderr };
}

async function send(tenantId: string, task: string, runId: string, answer: string, sessionId?: string): Promise<void> {
  const journal = await createSqliteJournal({ filename: file });
  const clock = steppingClock(Date.UTC(2026, 0, 1) + Number(runId.replace(/\D/g, "")) * 60_000, 1);
  const harness = createHarness({ journal, provider: createScriptedModel([say(answer)]), tenantId, clock, ids: ulidIdSource({ clock, random: () => 0.5 }) });
  await harness.start(task, { runId, ...(sessionId === undefined ? {} : { sessionId }) });
  await journal.close();
}

beforeAll(async () => {
  await send("tenant_a", "Capital of France?", "run_1", "Paris.", "session_geo");
  await send("tenant_a", "And Germany?", "run_2", "Berlin.", "session_geo");
  await send("tenant_a", "Unrelated question.", "run_3", "Sure.");
  await send("tenant_b", "Other tenant.", "run_4", "Yes.", "session_other");
});

describe("sessions in the CLI", () => {
  it("yoke sessions lists each tenant's sessions: runs, first and last time, last outcome; streams are not runs", async () => {
    const text = await yoke(["sessions", "--journal", file]);
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^TENANT\s+SESSION\s+RUNS\s+FIRST\s+LAST\s+LAST OUTCOME\s+LAST INPUT$/);
    expect(lines.find((line) => line.includes("session_geo"))).toMatch(
      /^tenant_a\s+session_geo\s+2\s+2026-01-01T00:01:00\.\d{3}Z\s+2026-01-01T00:02:00\.\d{3}Z\s+finished: completed\s+And Germany\?$/,
    );
    expect(lines.filter((line) => line.startsWith("tenant_a"))).toHaveLength(2);
    const json = JSON.parse((await yoke(["sessions", "--journal", file, "--tenant", "tenant_b", "--json"])).stdout);
    expect(json.sessions).toMatchObject([{ tenantId: "tenant_b", sessionId: "session_other", runs: [{ runId: "run_4", outcome: "completed" }] }]);
    const runs = await yoke(["runs", "--journal", file, "--json"]);
    expect(
      JSON.parse(runs.stdout)
        .runs.map((run: { runId: string }) => run.runId)
        .sort(),
    ).toEqual(["run_1", "run_2", "run_3", "run_4"]);
  });

  it("yoke request rebuilds a session run's request with the earlier exchange, checked against its hash", async () => {
    const rebuilt = await yoke(["request", "run_2", "1", "--journal", file, "--json"]);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    const text = rebuilt.stdout;
    for (const said of ["Capital of France?", "Paris.", "And Germany?"]) expect(text).toContain(said);
    expect(text.indexOf("Paris.")).toBeLessThan(text.indexOf("And Germany?"));
  });

  it("yoke show <session> lists its runs in order; an unknown session is RUN_NOT_FOUND (exit 3)", async () => {
    const shown = await yoke(["show", "session_geo", "--journal", file]);
    expect(shown.code, shown.stderr).toBe(0);
    const lines = shown.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^session session_geo \(tenant tenant_a\): 2 runs, /);
    expect(lines.slice(3).map((line) => line.split(/\s+/)[0])).toEqual(["run_1", "run_2"]);
    const missing = await yoke(["show", "session_nope", "--journal", file]);
    expect([missing.code, missing.stderr]).toEqual([3, "yoke: RUN_NOT_FOUND: no session session_nope in the journal\n"]);
  });

  it("a session exports to a directory and imports whole into another journal, where the second run's request still rebuilds", async () => {
    const out = join(scratch, "export");
    const exported = await yoke(["export", "session_geo", "--out", out, "--journal", file]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["run_1.json", "run_2.json", "session_geo:session.json"]);
    const target = join(scratch, "copy.sqlite");
    const imported = await yoke(["import", out, "--journal", target, "--json"]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout).runs.map((run: { runId: string }) => run.runId)).toEqual(["run_1", "run_2", "session_geo:session"]);
    const again = await yoke(["import", out, "--journal", target]);
    expect([again.code, again.stderr]).toEqual([4, "yoke: RUN_ALREADY_EXISTS: the journal already holds run run_1 for tenant tenant_a; nothing imported\n"]);
    const journal = await createSqliteJournal({ filename: target, readOnly: true });
    try {
      const rebuilt = await reconstructRequest(journal, { tenantId: "tenant_a", runId: "run_2" }, 1);
      expect(rebuilt.request.messages.filter((message) => message.role === "user" || message.role === "assistant")).toHaveLength(3);
    } finally {
      await journal.close();
    }
    const usage = await yoke(["export", "session_geo", "--journal", file]);
    expect(usage.code).toBe(2);
  });
});
