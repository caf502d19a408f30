// With a key, the example runs the quick-start task for real. Here "for real" is the real
// SDK against recorded wire traffic: OPENAI_BASE_URL points it at a loopback replay server.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createReplayServer, readReplayFixture } from "@yoke/testkit/replay";

const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const fixtures = fileURLToPath(new URL("./__fixtures__/", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "yoke-openai-agent-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("examples/openai-agent with a key", () => {
  it("runs the quick-start task to verified success", async () => {
    const server = await createReplayServer(
      ["turn-1.sse", "turn-2.sse", "turn-3.sse", "turn-4.sse"].map((file) => readReplayFixture(fixtures, file, { path: "/v1/responses" })),
    );
    const env = { ...process.env, OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` };
    const child = spawn(process.execPath, [main, "--dir", dir], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    await server.close();
    expect(stderr).toBe("");
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(/^outcome: verified_success after 4 turns$/m);
    expect(stdout).toMatch(/^journal verify: ok /m);
    expect(server.requests).toHaveLength(4);
    server.assertConsumed();
    expect(readFileSync(join(dir, "workspace", "summary.md"), "utf8")).toContain("- run the demo");
  });
});
