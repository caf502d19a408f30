// With a server, the example runs the quick-start task through the AI SDK bridge: the real
// @ai-sdk/openai-compatible provider against a loopback replay server serving recorded
// Chat Completions streams.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createReplayServer, readReplayFixture } from "@yoke/testkit/replay";

const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const fixtures = fileURLToPath(new URL("./__fixtures__/", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "yoke-ai-sdk-agent-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("examples/ai-sdk-agent with a server", () => {
  it("runs the quick-start task to verified success", async () => {
    const turns = ["turn-1.sse", "turn-2.sse", "turn-3.sse", "turn-4.sse"];
    const server = await createReplayServer(turns.map((file) => readReplayFixture(fixtures, file, { path: "/v1/chat/completions" })));
    const env = { ...process.env, AI_SDK_BASE_URL: `${server.url}/v1`, AI_SDK_API_KEY: "sk-local" };
    const child = spawn(process.execPath, [main, "--dir", dir], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    await server.close();
    expect(stderr).toBe("");
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(/^openai-compatible\.chat qwen3:8b: run in /m);
    expect(stdout).toMatch(/^outcome: verified_success after 4 turns$/m);
    expect(stdout).toMatch(/^journal verify: ok /m);
    expect(server.requests).toHaveLength(4);
    server.assertConsumed();
    // The second request carries the first call and its result back, through the bridge.
    const second = server.requests[1]!.body as { model: string; messages: { role: string; tool_call_id?: string; content?: unknown }[] };
    expect(second.model).toBe("qwen3:8b");
    expect(second.messages.find((message) => message.role === "tool")).toMatchObject({
      tool_call_id: "call_agent_read",
      content: expect.stringContaining("ship the journal\nwrite the tests\nrun the demo\n"),
    });
    expect(readFileSync(join(dir, "workspace", "summary.md"), "utf8")).toContain("- run the demo");
  });
});
