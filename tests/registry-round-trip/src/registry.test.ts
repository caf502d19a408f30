// The local registry never outlives the process that started it: a test runner that dies
// closes the registry's stdin, and the registry exits on its own.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { startRegistry, verdaccioBin } from "./registry.ts";

const work = mkdtempSync(join(tmpdir(), "yoke-registry-lifeline-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the local registry's process", () => {
  it("answers on 127.0.0.1, and exits by itself once its stdin closes (its starter is gone)", async () => {
    const registry = await startRegistry({ storage: join(work, "storage"), deadlineMs: 60_000 });
    try {
      expect(registry.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect((await fetch(`${registry.url}-/ping`)).ok).toBe(true);
      const exited = once(registry.process, "exit");
      registry.process.stdin!.end();
      const [code] = (await exited) as [number | null];
      expect(code).toBe(70);
    } finally {
      await registry.stop();
    }
  }, 90_000);

  it("exits by itself at its deadline, up or not", async () => {
    const launcher = fileURLToPath(new URL("./verdaccio-process.ts", import.meta.url));
    const config = join(work, "deadline.yaml");
    writeFileSync(
      config,
      `storage: ${JSON.stringify(join(work, "storage-deadline"))}\nweb:\n  enable: false\nlog: { type: stdout, format: pretty, level: warn }\n`,
    );
    const child = spawn(process.execPath, [launcher, verdaccioBin, config, "127.0.0.1:0", "500"], { stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    expect(stderr).toContain("deadline of 500 ms passed");
    expect(code).toBe(70);
  }, 60_000);
});
