// End to end, for the adapters that can rebuild their wire body: a three-turn run through the
// real SDK and the replay server, journaled in SQLite; then, from the journal alone, each
// turn's request is rebuilt (`reconstructRequest`, what `yoke request` prints) and handed to the
// adapter's pure wire-body function, whose bytes must be the HTTP body the server received.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createSqliteJournal } from "@yoke/journal";
import type { JsonValue, ModelRequest } from "@yoke/protocol";
import { anthropicWireBody } from "@yoke/provider-anthropic";
import { openAIWireBody } from "@yoke/provider-openai";
import { reconstructRequest } from "@yoke/runtime";
import { createReplayServer, readReplayFixture } from "@yoke/testkit/replay";
import { providers } from "./providers.ts";

const child = fileURLToPath(new URL("./kill-resume-child.ts", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "yoke-wire-body-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function run(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [child, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const wireBodies: Record<string, (request: ModelRequest, model: string) => { [key: string]: JsonValue }> = {
  openai: (request, model) => openAIWireBody(request, { model }),
  anthropic: (request, model) => anthropicWireBody(request, { model }),
};

// One child process that loads the SDK and the runtime: seconds on a loaded 2-core machine.
const CHILD_PROCESS_TIMEOUT_MS = 180_000;

describe.each(providers.filter((provider) => provider.name in wireBodies))("$name: the wire body rebuilt from the journal", (provider) => {
  it(
    "is, byte for byte, the body the recorded server received on each of three turns",
    async () => {
      const server = await createReplayServer(
        ["e2e-turn-1.sse", "e2e-turn-2.sse", "e2e-turn-3.sse"].map((file) => readReplayFixture(provider.fixtures, file, { path: provider.replayPath })),
      );
      try {
        const dir = join(root, provider.name);
        const result = await run(provider.name, "start", server.url, dir);
        expect(result.stderr).toBe("");
        expect(server.requests).toHaveLength(3);
        const journal = await createSqliteJournal({ filename: join(dir, "journal.sqlite") });
        try {
          for (const turn of [1, 2, 3]) {
            const rebuilt = await reconstructRequest(journal, { tenantId: "tenant_e2e", runId: "run_e2e" }, turn);
            const body = wireBodies[provider.name]!(rebuilt.request, rebuilt.manifest.model);
            expect(JSON.stringify(body)).toBe(server.requests[turn - 1]!.rawBody);
          }
        } finally {
          await journal.close();
        }
      } finally {
        await server.close();
      }
    },
    CHILD_PROCESS_TIMEOUT_MS,
  );
});
