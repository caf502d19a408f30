// Runs the example as a user would (a fresh node process): a real server-filesystem over stdio,
// a scripted model, a SQLite journal; the timeline must show the pinned digests and the
// revision each action ran, and the run must end verified.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "yoke-mcp-agent-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("examples/mcp-agent", () => {
  it("runs over server-filesystem to verified success, with the pinned revision of every action in its timeline", { timeout: 120_000 }, () => {
    const run = spawnSync(process.execPath, [main, "--dir", dir], { encoding: "utf8", timeout: 110_000 });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const out = run.stdout;
    const pinnedLine = out.split("\n").find((line) => line.includes("pinned tools "));
    const pinned = new Map([...(pinnedLine ?? "").matchAll(/([a-z_]+)@([0-9a-f]{12})/g)].map((match) => [match[1], match[2]]));
    expect(pinned.size).toBeGreaterThanOrEqual(10);
    expect(out.match(/turn \d, offered list_directory, read_text_file, write_file \([0-9a-f]{12}\)/g)).toHaveLength(4);
    const admitted = [...out.matchAll(/action\.admitted +([a-z_]+)@([0-9a-f]{12})/g)].map((match) => [match[1], match[2]]);
    expect(admitted.map(([name]) => name)).toEqual(["list_directory", "read_text_file", "write_file"]);
    for (const [name, digest] of admitted) expect(pinned.get(name!)).toBe(digest);
    expect(out).toContain("outcome: verified_success after 4 turns");
    // The completion check runs through the verifier gate: verifier.started and verifier.finished before completion.checked.
    expect(out).toMatch(
      /verifier\.started +checkCompletion \(attempt 1, replay-safe\)\n.*verifier\.finished +checkCompletion passed\n.*completion\.checked +passed/,
    );
    expect(out).toMatch(/journal verify: ok \(27 events\)/);
    expect(readFileSync(join(dir, "workspace", "summary.md"), "utf8")).toBe("# Summary\n\n- ship the registry\n- pin every tool\n");
  });
});
