// Every package README's first TypeScript snippet runs as written, against the built packages.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
// Inside this example, so the snippet resolves @yoke/* and zod through its node_modules.
const snippetDir = fileURLToPath(new URL("../.readme-snippets/", import.meta.url));
const workDir = mkdtempSync(join(tmpdir(), "yoke-readme-"));
afterAll(() => {
  rmSync(snippetDir, { recursive: true, force: true });
  rmSync(workDir, { recursive: true, force: true });
});

const packages = readdirSync(join(repo, "packages")).sort();

describe("package README snippets", () => {
  it.each(packages)("@yoke/%s has a snippet that runs", (name) => {
    const readme = readFileSync(join(repo, "packages", name, "README.md"), "utf8");
    const snippet = readme.match(/```ts\n([\s\S]*?)```/)?.[1];
    expect(snippet, `packages/${name}/README.md has no ts snippet`).toBeDefined();
    mkdirSync(snippetDir, { recursive: true });
    const file = join(snippetDir, `${name}.ts`);
    writeFileSync(file, snippet!);
    const child = spawnSync(process.execPath, [file], { cwd: workDir, encoding: "utf8", timeout: 60_000 });
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    expect(child.stdout.length).toBeGreaterThan(0);
  });
});
