// End to end: a three-turn, streamed, tool-calling run through the real SDK and the replay
// server, journaled in SQLite, SIGKILLed between turns and resumed in a fresh process. The
// replay server proves no journaled response is ever requested again.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createSqliteJournal } from "@yoke/journal";
import { createReplayServer, readReplayFixture, type ReplayServer } from "@yoke/testkit/replay";

const child = fileURLToPath(new URL("./kill-resume-child.ts", import.meta.url));
const fixtures = fileURLToPath(new URL("../src/__fixtures__/", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "yoke-openai-e2e-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function run(...args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [child, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

const turns = () => ["e2e-turn-1.sse", "e2e-turn-2.sse", "e2e-turn-3.sse"].map((file) => readReplayFixture(fixtures, file, { path: "/v1/responses" }));

async function journaledResponses(dir: string): Promise<number> {
  const journal = await createSqliteJournal({ filename: join(dir, "journal.sqlite") });
  let count = 0;
  for await (const event of journal.read({ tenantId: "tenant_e2e", runId: "run_e2e" })) if (event.type === "model.responded") count += 1;
  expect((await journal.verify({ tenantId: "tenant_e2e", runId: "run_e2e" })).ok).toBe(true);
  await journal.close();
  return count;
}

describe("openai: three streamed turns, killed between turns and resumed", () => {
  let baseline: ReplayServer;
  afterAll(() => baseline?.close());

  it("runs uninterrupted to verified success in three requests", async () => {
    baseline = await createReplayServer(turns());
    const dir = join(root, "baseline");
    const result = await run("start", baseline.url, dir);
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual({ outcome: "verified_success", turns: 3 });
    expect(baseline.requests).toHaveLength(3);
    baseline.assertConsumed();
    expect(readFileSync(join(dir, "workspace", "summary.md"), "utf8")).toBe("# Summary\n\n- ship the journal\n- write the tests\n");
    // Turn 1's encrypted reasoning item travels with turns 2 and 3; tool outputs pair by call id.
    const inputs = baseline.requests.map((request) => (request.body as { input: { type?: string; role?: string }[] }).input.map((item) => item.type ?? item.role));
    expect(inputs).toEqual([
      ["developer", "user"],
      ["developer", "user", "reasoning", "function_call", "function_call_output"],
      ["developer", "user", "reasoning", "function_call", "function_call_output", "function_call", "function_call", "function_call_output", "function_call_output"],
    ]);
  });

  it.each([1, 2])("after a SIGKILL once response %i is journaled, resumes without asking for it again", async (killAfter) => {
    const server = await createReplayServer(turns());
    const dir = join(root, `kill-${killAfter}`);
    const crashed = await run("start", server.url, dir, String(killAfter));
    expect(crashed.signal).toBe("SIGKILL");
    expect(server.requests).toHaveLength(killAfter);
    expect(await journaledResponses(dir)).toBe(killAfter);

    const resumed = await run("resume", server.url, dir);
    expect(resumed.stderr).toBe("");
    expect(JSON.parse(resumed.stdout)).toEqual({ outcome: "verified_success", turns: 3 });
    expect(server.requests).toHaveLength(3);
    server.assertConsumed();
    expect(await journaledResponses(dir)).toBe(3);
    // The resumed process sends exactly what the uninterrupted run sent.
    expect(server.requests.map((request) => request.body)).toEqual(baseline.requests.map((request) => request.body));
    expect(existsSync(join(dir, "workspace", "summary.md"))).toBe(true);
    await server.close();
  });
});
