// End to end, once per provider: a three-turn, streamed, tool-calling run through the real SDK
// and the replay server, journaled in SQLite, SIGKILLed between turns and resumed in a fresh
// process. The replay server proves no journaled response is ever requested again.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createSqliteJournal } from "@yoke/journal";
import { createReplayServer, readReplayFixture, type ReplayServer } from "@yoke/testkit/replay";
import { providers } from "./providers.ts";

const child = fileURLToPath(new URL("./kill-resume-child.ts", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "yoke-provider-e2e-"));
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

async function journaledResponses(dir: string): Promise<number> {
  const journal = await createSqliteJournal({ filename: join(dir, "journal.sqlite") });
  let count = 0;
  for await (const event of journal.read({ tenantId: "tenant_e2e", runId: "run_e2e" })) if (event.type === "model.responded") count += 1;
  expect((await journal.verify({ tenantId: "tenant_e2e", runId: "run_e2e" })).ok).toBe(true);
  await journal.close();
  return count;
}

// Each test starts one or two Node processes that load the SDK and the runtime: seconds each on a
// loaded 2-core machine (15 s seen at load 20), so the tests get a wide margin over vitest's 30 s.
const CHILD_PROCESS_TIMEOUT_MS = 180_000;

describe.each(providers)("$name: three streamed turns, killed between turns and resumed", (provider) => {
  const turns = () =>
    ["e2e-turn-1.sse", "e2e-turn-2.sse", "e2e-turn-3.sse"].map((file) => readReplayFixture(provider.fixtures, file, { path: provider.replayPath }));
  let baseline: ReplayServer;
  afterAll(() => baseline?.close());

  it(
    "runs uninterrupted to verified success in three requests",
    async () => {
      baseline = await createReplayServer(turns());
      const dir = join(root, provider.name, "baseline");
      const result = await run(provider.name, "start", baseline.url, dir);
      expect(result.stderr).toBe("");
      expect(JSON.parse(result.stdout)).toEqual({ outcome: "completed", turns: 3 });
      expect(baseline.requests).toHaveLength(3);
      baseline.assertConsumed();
      expect(readFileSync(join(dir, "workspace", "summary.md"), "utf8")).toBe("# Summary\n\n- ship the journal\n- write the tests\n");
      // The transcript each request carried: reasoning travels back, tool results pair by id.
      expect(baseline.requests.map((request) => provider.requestShape(request.body))).toEqual(provider.expectedRequestShapes);
    },
    CHILD_PROCESS_TIMEOUT_MS,
  );

  it.each([1, 2])(
    "after a SIGKILL once response %i is journaled, resumes without asking for it again",
    async (killAfter) => {
      const server = await createReplayServer(turns());
      const dir = join(root, provider.name, `kill-${killAfter}`);
      const crashed = await run(provider.name, "start", server.url, dir, String(killAfter));
      expect(crashed.signal).toBe("SIGKILL");
      expect(server.requests).toHaveLength(killAfter);
      expect(await journaledResponses(dir)).toBe(killAfter);

      const resumed = await run(provider.name, "resume", server.url, dir);
      expect(resumed.stderr).toBe("");
      expect(JSON.parse(resumed.stdout)).toEqual({ outcome: "completed", turns: 3 });
      expect(server.requests).toHaveLength(3);
      server.assertConsumed();
      expect(await journaledResponses(dir)).toBe(3);
      // The resumed process sends exactly what the uninterrupted run sent.
      expect(server.requests.map((request) => request.body)).toEqual(baseline.requests.map((request) => request.body));
      expect(existsSync(join(dir, "workspace", "summary.md"))).toBe(true);
      await server.close();
    },
    CHILD_PROCESS_TIMEOUT_MS,
  );
});
