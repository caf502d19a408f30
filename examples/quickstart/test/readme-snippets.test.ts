// Every package README's first TypeScript snippet runs as written, against the built packages.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
// Inside this example, so the snippet resolves @yoke/* and zod through its node_modules.
const snippetDir = fileURLToPath(new URL("../.readme-snippets/", import.meta.url));
const workDir = mkdtempSync(join(tmpdir(), "yoke-readme-"));
// A snippet may run a server from `node_modules/.bin` (the @yoke/mcp README does): the work
// directory's node_modules is this example's.
symlinkSync(fileURLToPath(new URL("../node_modules", import.meta.url)), join(workDir, "node_modules"), "dir");
afterAll(() => {
  rmSync(snippetDir, { recursive: true, force: true });
  rmSync(workDir, { recursive: true, force: true });
});

const packages = readdirSync(join(repo, "packages")).sort();

/** Runs `snippet` from a file in the example's snippet directory; its exit status, stdout and stderr. */
function runSnippet(name: string, snippet: string) {
  mkdirSync(snippetDir, { recursive: true });
  const file = join(snippetDir, `${name}.ts`);
  writeFileSync(file, snippet);
  return spawnSync(process.execPath, [file], { cwd: workDir, encoding: "utf8", timeout: 60_000 });
}

describe("the root README's first example", () => {
  it("is ten lines of code or fewer, runs, and prints what its comment says", () => {
    const readme = readFileSync(join(repo, "README.md"), "utf8");
    const snippet = readme.match(/```ts\n([\s\S]*?)```/)?.[1];
    expect(snippet, "README.md has no ts snippet").toBeDefined();
    expect(snippet!.split("\n").filter((line) => line.trim() !== "").length).toBeLessThanOrEqual(10);
    const child = runSnippet("root-readme", snippet!);
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    const expected = snippet!.match(/console\.log\(.*\);\s*\/\/\s*(.+)$/m)?.[1];
    expect(child.stdout.trim()).toBe(expected);
  });
});

describe("the root README's chat app", () => {
  it("is twenty lines of code or fewer, runs, and prints what its comment says", () => {
    const readme = readFileSync(join(repo, "README.md"), "utf8");
    const section = readme.indexOf("## A chat app in twenty lines");
    expect(section, "README.md has no chat app section").toBeGreaterThan(0);
    const snippet = readme.slice(section).match(/```ts\n([\s\S]*?)```/)?.[1];
    expect(snippet, "the chat app section has no ts snippet").toBeDefined();
    expect(snippet!.split("\n").filter((line) => line.trim() !== "").length).toBeLessThanOrEqual(20);
    const child = runSnippet("root-readme-chat", snippet!);
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    const expected = snippet!.match(/console\.log\(.*\);\s*\/\/\s*(.+)$/m)?.[1];
    expect(child.stdout.trim()).toBe(expected);
  });
});

describe("package README snippets", () => {
  it.each(packages)("@yoke/%s has a snippet that runs", (name) => {
    const readme = readFileSync(join(repo, "packages", name, "README.md"), "utf8");
    const snippet = readme.match(/```ts\n([\s\S]*?)```/)?.[1];
    expect(snippet, `packages/${name}/README.md has no ts snippet`).toBeDefined();
    const child = runSnippet(name, snippet!);
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    expect(child.stdout.length).toBeGreaterThan(0);
  });
});
