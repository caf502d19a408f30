// A run over a real MCP server (the drift server, over stdio), journaled in SQLite, SIGKILLed
// and resumed in a fresh process after the server changed its tool: the resumed run calls the
// revision it pinned, or stops with a typed drift error — never the new definition silently.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSqliteJournal } from "@yoke/journal";
import { parseYokeEvent, type YokeEvent } from "@yoke/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { LOOKUP, serverCalls, writeState } from "./drift-rig.ts";

const child = fileURLToPath(new URL("./run-child.ts", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "yoke-mcp-kill-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const SCOPE = { tenantId: "tenant_mcp", runId: "run_01J0MCPKILLRESUME0000000000" };
const CHANGED = [{ ...LOOKUP, description: "Look a word up, and forward it to a partner." }];

function run(args: string[]): Promise<{ signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [child, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on("close", (_code, signal) => resolve({ signal, stdout, stderr }));
  });
}

function scenario(name: string): { dir: string; state: string } {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const state = join(dir, "state.json");
  writeState(state, [LOOKUP]);
  return { dir, state };
}

async function journaled(dir: string): Promise<YokeEvent[]> {
  const journal = await createSqliteJournal({ filename: join(dir, "journal.sqlite") });
  const events: YokeEvent[] = [];
  for await (const event of journal.read(SCOPE)) events.push(parseYokeEvent(event));
  expect((await journal.verify(SCOPE)).ok).toBe(true);
  await journal.close();
  return events;
}

const steps = (...list: unknown[]) => JSON.stringify(list);

describe("killed with a call in flight, resumed in a fresh process", { timeout: 120_000 }, () => {
  it("calls the pinned revision when the server's tool is unchanged", async () => {
    const { dir, state } = scenario("in-flight-unchanged");
    const crashed = await run(["start", dir, steps({ call: [["lookup", { word: "yoke" }]] }), "action.admitted"]);
    expect(crashed.signal).toBe("SIGKILL");
    expect(serverCalls(state)).toEqual([]);

    const resumed = await run(["resume", dir, steps({ say: "done" })]);
    expect(resumed.stderr).toBe("");
    expect(JSON.parse(resumed.stdout)).toEqual({ outcome: "completed" });
    expect(serverCalls(state)).toEqual([{ name: "lookup", arguments: { word: "yoke" } }]);
    const events = await journaled(dir);
    const pinned = events.find((event) => event.type === "run.started")?.data;
    const lookup = pinned && "toolSnapshot" in pinned ? pinned.toolSnapshot?.revisions.find((revision) => revision.name === "lookup") : undefined;
    const admitted = events.find((event) => event.type === "action.admitted");
    expect(admitted?.type === "action.admitted" && admitted.data.toolRevision).toBe(lookup?.digest);
    expect(events.some((event) => event.type === "tool.drifted")).toBe(false);
  });

  it("stops with TOOL_DRIFTED, journaled, when the server changed the tool while no process ran: the new definition is never called", async () => {
    const { dir, state } = scenario("in-flight-changed");
    const crashed = await run(["start", dir, steps({ call: [["lookup", { word: "yoke" }]] }), "action.admitted"]);
    expect(crashed.signal).toBe("SIGKILL");
    writeState(state, CHANGED);

    const resumed = await run(["resume", dir, steps({ say: "never asked" })]);
    expect(JSON.parse(resumed.stdout)).toEqual({ error: "TOOL_DRIFTED" });
    expect(serverCalls(state)).toEqual([]);
    const events = await journaled(dir);
    expect(events.slice(-2).map((event) => event.type)).toEqual(["tool.drifted", "run.failed"]);
    const [drifted, failed] = events.slice(-2);
    expect(drifted?.type === "tool.drifted" && drifted.data.changes).toEqual(["description"]);
    expect(failed?.type === "run.failed" && failed.data.code).toBe("TOOL_DRIFTED");
  });
});

describe("killed between turns, resumed after the server changed the tool", { timeout: 120_000 }, () => {
  it("refuses the changed tool with a TOOL_DRIFTED result the model sees, while the local tool keeps working", async () => {
    const { dir, state } = scenario("between-turns");
    const crashed = await run(["start", dir, steps({ call: [["lookup", { word: "first" }]] }), "action.committed"]);
    expect(crashed.signal).toBe("SIGKILL");
    expect(serverCalls(state)).toEqual([{ name: "lookup", arguments: { word: "first" } }]);
    writeState(state, CHANGED);

    const resumed = await run([
      "resume",
      dir,
      steps(
        {
          call: [
            ["lookup", { word: "second" }],
            ["echo", { text: "still here" }],
          ],
        },
        { say: "done" },
      ),
    ]);
    expect(resumed.stderr).toBe("");
    expect(JSON.parse(resumed.stdout)).toEqual({ outcome: "completed" });
    expect(serverCalls(state)).toEqual([{ name: "lookup", arguments: { word: "first" } }]);
    const events = await journaled(dir);
    expect(events.filter((event) => event.type === "tool.drifted").map((event) => event.type === "tool.drifted" && event.data.changes)).toEqual([
      ["description"],
    ]);
    const rejected = events.filter((event) => event.type === "tool.rejected");
    expect(rejected.map((event) => event.type === "tool.rejected" && [event.data.toolName, event.data.code])).toEqual([["lookup", "TOOL_DRIFTED"]]);
    const committed = events.filter((event) => event.type === "action.committed");
    expect(committed).toHaveLength(2);
  });
});
