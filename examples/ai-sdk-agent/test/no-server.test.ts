// Without AI_SDK_BASE_URL the example explains itself, sends nothing and exits 0.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));

describe("examples/ai-sdk-agent without a server", () => {
  it("explains itself and exits 0", () => {
    const { AI_SDK_BASE_URL: _url, ...env } = process.env;
    const child = spawnSync(process.execPath, [main], { encoding: "utf8", env, timeout: 30_000 });
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    expect(child.stdout).toContain("AI_SDK_BASE_URL is not set, so nothing was sent");
  });
});
