// The README's "See the run" command: `bash scripts/view.sh` runs the demo when its journal is
// missing, then serves the viewer on 127.0.0.1 over that journal.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../../..", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "yoke-see-the-run-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("bash scripts/view.sh (the README's 'See the run')", () => {
  it("runs the demo, then serves the viewer on 127.0.0.1 with the demo's run in it", async () => {
    const dir = join(root, "demo");
    const child = spawn("bash", [join(repo, "scripts/view.sh"), "--dir", dir, "--port", "0"], { cwd: repo, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let stdout = "";
        child.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
          const found = /yoke view: (http:\/\/127\.0\.0\.1:\d+\S*)/.exec(stdout)?.[1];
          if (found !== undefined) resolve(found);
        });
        child.on("close", (code) => reject(new Error(`view.sh exited ${code} before printing a URL: ${stdout}${stderr}`)));
      });
      const origin = new URL(url).origin;
      const runs = (await (await fetch(`${origin}/api/runs`)).json()) as unknown;
      expect(JSON.stringify(runs)).toContain("run_quickstart");
      expect((await fetch(origin)).status).toBe(200);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  }, 300_000);
});
