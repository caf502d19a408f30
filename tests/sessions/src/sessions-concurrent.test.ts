// Two processes send to one session at once: exactly one records its run and runs; the other
// is refused SESSION_BUSY naming that run, or, asked to wait, runs after it has ended, with its
// exchange in context. Every wait is on a child's output, never on the clock.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSqliteJournal } from "@yoke/journal";
import { parseYokeEvent } from "@yoke/protocol";
import { SESSION_STREAM_SUFFIX } from "@yoke/runtime";
import { ScriptProcess } from "@yoke/testkit/crash";
import { afterAll, describe, expect, it } from "vitest";

const script = fileURLToPath(new URL("./session-sender.ts", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "yoke-session-race-"));
const launched: ScriptProcess[] = [];
afterAll(async () => {
  await Promise.all(launched.map((child) => child.kill()));
  rmSync(root, { recursive: true, force: true });
});

async function sender(dir: string, runId: string, message: string, wait = false): Promise<ScriptProcess> {
  const child = new ScriptProcess(
    runId,
    script,
    ["--dir", dir, "--run", runId, "--message", message, ...(wait ? ["--wait"] : [])],
    "yoke-sessions-compile-cache",
  );
  launched.push(child);
  expect(await child.line("READY"), child.transcript()).toBe("READY");
  return child;
}

async function recorded(dir: string): Promise<string[]> {
  const journal = await createSqliteJournal({ filename: join(dir, "journal.sqlite"), readOnly: true });
  try {
    const runIds: string[] = [];
    for await (const event of journal.read({ tenantId: "tenant_sessions", runId: `session_race${SESSION_STREAM_SUFFIX}` })) {
      const typed = parseYokeEvent(event);
      if (typed.type === "session.appended") runIds.push(typed.data.runId);
    }
    return runIds;
  } finally {
    await journal.close();
  }
}

/** The first line either child prints after `go`: which one got the session. */
function first(a: ScriptProcess, b: ScriptProcess, prefixes: string[]): Promise<{ child: ScriptProcess; line: string }> {
  const watch = (child: ScriptProcess) => Promise.any(prefixes.map((prefix) => child.line(prefix))).then((line) => ({ child, line }));
  return Promise.race([watch(a), watch(b)]);
}

describe("two processes sending to one session at once", () => {
  it("both go at once: one runs, the other is SESSION_BUSY naming it; the session records one run", async () => {
    const dir = join(root, "race");
    const a = await sender(dir, "run_a", "from a");
    const b = await sender(dir, "run_b", "from b");
    a.send("go");
    b.send("go");
    const busy = await first(a, b, ["FAILED "]);
    expect(busy.line).toMatch(/^FAILED SESSION_BUSY session session_race: its run run_[ab] has not ended/);
    const winner = busy.child === a ? b : a;
    expect(busy.line).toContain(`its run ${winner.name} `);
    expect(await winner.line("MODEL_CALL "), winner.transcript()).toBe("MODEL_CALL 1");
    winner.send("finish");
    expect(await winner.line("DONE "), winner.transcript()).toBe('DONE {"outcome":"completed","continues":[]}');
    expect(await recorded(dir)).toEqual([winner.name]);
  }, 120_000);

  it("the second waits (waitForSession): it runs once the first has ended, shown the first exchange", async () => {
    const dir = join(root, "wait");
    const a = await sender(dir, "run_a", "first");
    a.send("go");
    expect(await a.line("MODEL_CALL "), a.transcript()).toBe("MODEL_CALL 1");
    const b = await sender(dir, "run_b", "second", true);
    b.send("go");
    // b waits on the session while a's model call is held; a's call ends only on `finish`.
    expect(await b.line("WAITING_FOR_SESSION"), b.transcript()).toBe("WAITING_FOR_SESSION");
    a.send("finish");
    expect(await a.line("DONE "), a.transcript()).toBe('DONE {"outcome":"completed","continues":[]}');
    expect(await b.line("MODEL_CALL "), b.transcript()).toBe("MODEL_CALL 3");
    b.send("finish");
    expect(await b.line("DONE "), b.transcript()).toBe('DONE {"outcome":"completed","continues":["run_a"]}');
    expect(await recorded(dir)).toEqual(["run_a", "run_b"]);
  }, 120_000);
});
