// A three-message session survives a real SIGKILL at every append: the scenario runs
// crash-free once, then once per append × kill point in a fresh directory, killed there
// (SIGKILL from the testkit's crash injection), and finished by a fresh process. Every time,
// each run ends as in the crash-free session, every stream's hash chain verifies, the session
// records each run once, in order, and the later runs' requests (rebuilt from the journal,
// byte for byte) hold the earlier exchanges.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSqliteJournal } from "@yoke/journal";
import { parseYokeEvent, reduceRun, type JournalEvent, type Message } from "@yoke/protocol";
import { SESSION_STREAM_SUFFIX, reconstructRequest } from "@yoke/runtime";
import { CRASH_PLAN_ENV, KILL_POINTS } from "@yoke/testkit/crash";
import { afterAll, describe, expect, it } from "vitest";

const script = fileURLToPath(new URL("./session-scenario.ts", import.meta.url));
const TENANT = "tenant_sessions";
const SESSION = "session_chat";
const RUNS = ["run_message_1", "run_message_2", "run_message_3"];
const root = mkdtempSync(join(tmpdir(), "yoke-sessions-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const cache = { NODE_COMPILE_CACHE: join(tmpdir(), "yoke-sessions-compile-cache") };

function run(dir: string, env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [script, "--dir", dir], { encoding: "utf8", timeout: 60_000, env: { ...cache, ...process.env, ...env } });
}

function reportOf(stdout: string): { outcomes: string[]; appends: number } | undefined {
  const line = stdout.split("\n").findLast((entry) => entry.startsWith("REPORT "));
  return line === undefined ? undefined : JSON.parse(line.slice("REPORT ".length));
}

/** What a message says, without ids or times: role and text, tool calls by name, tool results by text. */
function said(message: Message): string {
  if (message.role === "system") return `system: ${message.content}`;
  if (message.role === "tool")
    return `tool: ${message.content.map((part) => part.result.content.map((item) => (item.type === "text" ? item.text : "")).join("")).join("|")}`;
  return `${message.role}: ${message.content.map((part) => (part.type === "text" ? part.text : part.type === "tool-call" ? `call ${part.toolName}` : part.type)).join("|")}`;
}

/** The session's final state as the journal in `dir` holds it; every stream's chain verified. */
async function finalState(dir: string) {
  const journal = await createSqliteJournal({ filename: join(dir, "journal.sqlite"), readOnly: true });
  try {
    const read = async (runId: string) => {
      const events: JournalEvent[] = [];
      for await (const event of journal.read({ tenantId: TENANT, runId })) events.push(event);
      expect(await journal.verify({ tenantId: TENANT, runId }), runId).toMatchObject({ ok: true });
      return events;
    };
    const stream = (await read(`${SESSION}${SESSION_STREAM_SUFFIX}`))
      .map(parseYokeEvent)
      .map((event) => (event.type === "session.appended" ? event.data.runId : event.type));
    const runs = [];
    const lengths = new Map<string, number>();
    for (const runId of RUNS) {
      const state = reduceRun(await read(runId));
      lengths.set(runId, state.length);
      // Each pin is the earlier run as it ended (a resumed run has more events than a crash-free one: its recovery's).
      for (const pin of state.continues ?? []) expect(pin.length, `${runId} pins ${pin.runId}`).toBe(lengths.get(pin.runId));
      runs.push({
        runId,
        sessionId: state.sessionId,
        outcome: state.outcome,
        messages: state.messages.map(said),
        continues: state.continues?.map((pin) => pin.runId),
      });
    }
    // What the model saw on each run's first turn, rebuilt byte for byte from the journal.
    const firstRequests = [];
    for (const runId of RUNS) {
      const rebuilt = await reconstructRequest(journal, { tenantId: TENANT, runId }, 1);
      firstRequests.push(rebuilt.request.messages.filter((message) => message.role !== "system").map(said));
    }
    return { stream, runs, firstRequests };
  } finally {
    await journal.close();
  }
}

describe("a three-message session killed at every append", async () => {
  const baselineDir = join(root, "baseline");
  const baseline = run(baselineDir);
  const report = reportOf(baseline.stdout);
  const expected = report === undefined ? undefined : await finalState(baselineDir);

  it("the crash-free session: three runs in order, each later request holding the earlier exchanges", () => {
    expect(report, baseline.stderr).toMatchObject({ outcomes: ["completed", "completed", "completed"] });
    expect(expected!.stream).toEqual(["run.started", ...RUNS]);
    const [first, second, third] = expected!.firstRequests;
    expect(first).toEqual(["user: Remember the number 7."]);
    expect(second!.map((line) => line.replace(/⟦[^⟧]*⟧\n?/g, "").trim())).toEqual([
      "user: Remember the number 7.",
      "assistant: call note",
      "tool: noted 7",
      "assistant: saw 3 messages; first: Remember the number 7.",
      "user: What number did I give you?",
    ]);
    expect(third).toEqual([...second!, "assistant: saw 5 messages; first: Remember the number 7.", "user: Double it."]);
    expect(expected!.runs.map((entry) => entry.continues)).toEqual([undefined, [RUNS[0]], [RUNS[0], RUNS[1]]]);
  });

  const appends = report?.appends ?? 0;
  it("appends enough to cut every step of every run", () => {
    // Per run: the session entry, run.started with the first request, and at least the answer.
    expect(appends).toBeGreaterThanOrEqual(10);
  });

  const cases = Array.from({ length: appends }, (_, index) => index + 1).flatMap((append) => KILL_POINTS.map((point) => ({ append, point })));
  it.each(cases)("SIGKILL at append $append ($point): a fresh process finishes the session as the crash-free one ended", async ({ append, point }) => {
    const dir = join(root, `kill-${append}-${point}`);
    const killed = run(dir, { [CRASH_PLAN_ENV]: `${append}:${point}` });
    expect(killed.signal, killed.stderr).toBe("SIGKILL");
    const resumed = run(dir);
    expect(reportOf(resumed.stdout), resumed.stderr).toMatchObject({ outcomes: ["completed", "completed", "completed"] });
    expect(await finalState(dir)).toEqual(expected);
  });
});
